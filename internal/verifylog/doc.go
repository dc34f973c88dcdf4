// Package verifylog holds what a job logs and reads back, apart from the
// event loop that drives it: the verify log (Log), trim verify's list
// (TrimList), the verify_state_save file (State), the write_*_log and
// write_hist_log samples (JobLogger), the write_iolog= writer
// (IOLogWriter), the planning and pacing of a read_iolog= replay
// (PlanReplay, Replay, merge_blktrace_file's MergeTraces), and the job's
// verifier (NewVerifier).
//
// Log is what a verifying job wrote, as fio 3.33's io_hist keeps it
// (iolog.c's log_io_piece): for a random job with a random map a list in
// write order, for the others a set in file and offset order where a
// write takes the older blocks it overlaps out. verify_backlog and the
// verify phase read its first block, in that order; trim verify's list
// (TrimList: trim_percentage, trim_backlog, trim_backlog_batch,
// trim_verify_zero) lives in it and indexes its entries.
//
// Its rules: it imports nothing of the run core. The log is fed where fio
// feeds its own (a write when it is issued, Issued, and when it
// completes, Completed), so that its counts match fio's at any iodepth;
// it is pure data, owned by one job's event loop, and does no I/O; per
// I/O it allocates nothing once its entries have grown to a pass.
package verifylog
