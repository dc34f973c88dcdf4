// Package target is a job's files and block devices, as fio's filesetup.c
// sets them up: their names (filename=, directory=, filename_format=),
// what they are and how large (Plan: regular file, block or character
// device, real size, the job's region on each), the checks made before
// anything is written (a missing device under /dev, zonemode=zbd targets,
// O_DIRECT alignment, free space, unlink_each_loop; PlanJob), their
// layout (Layout, CreateEmpty), opening (Open: flags, O_DIRECT,
// fadvise_hint, write_hint), pre_read, fallocate=, lockfile='s locks,
// sync_file_range='s spans (SyncRanges), unlink_each_loop's reopening,
// end_fsync and end_syncfs, closing and unlink=, the disks under them
// (Disks, fio's disk_util) and block_error_percentiles' blocks.
//
// Its rules: it plans before it writes, so that bad input is refused with
// nothing created; a failure on one target is a *joberr.Error that ends
// only its job; it writes nothing outside the job's own files, never
// truncates a file that existed, and it imports nothing of the run core:
// the run passes in what it needs (fadvise, the stop flag, the warning
// stream).
package target
