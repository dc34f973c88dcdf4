package equivalence

// trimVerifyRows are the trim verify options (trim_percentage,
// trim_backlog, trim_backlog_batch, trim_verify_zero) at iodepth=1, where
// fio 3.33 logs, draws and trims in the same order as gofio: the counts
// and the per-I/O log (direction, length, offset of every trim, write and
// verify read) must be equal. The loop-device row, where trimmed blocks
// really read back as zeroes, is in TestTrim (trim_test.go).
var trimVerifyRows = []Row{
	iosRow("trimverify/null-trimwrite", "trim_percentage=50 trim_backlog=8: 387 trims (256 + the 131 blocks picked), 256 verify reads", null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8"),
	iosRow("trimverify/null-zero0", "trim_verify_zero=0: trimmed blocks leave the verify list (125 reads)", null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--trim_verify_zero=0"),
	iosRow("trimverify/null-batch", "trim_backlog=64 trim_backlog_batch=2: the writes end with 2 blocks untrimmed (385 trims, 127 reads)", null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=64", "--trim_backlog_batch=2", "--trim_verify_zero=0"),
	iosRow("trimverify/null-randtrimwrite-verify-backlog", "trim verify with verify_backlog, whose reads take blocks off the trim list, and tausworthe64",
		null, "--rw=randtrimwrite", "--bsrange=4k-16k", "--size=1m", "--verify=null", "--trim_percentage=30", "--trim_backlog=5", "--trim_backlog_batch=3",
		"--verify_backlog=7", "--random_generator=tausworthe64"),
	iosRow("trimverify/null-norandommap", "trim verify with norandommap: a rewrite takes the older entry out of fio's sorted log and off the trim list, and the job writes past size= while the list holds blocks (262 writes, 395 trims, 160 reads)", null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8"),
	iosRow("trimverify/null-norandommap-zero0", "trim verify with norandommap and trim_verify_zero=0 (260 writes, 392 trims, 74 reads)", null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--trim_verify_zero=0"),
	iosRow("trimverify/null-number-ios", "trim verify with number_ios, which counts the list's trims, and past which fio runs while the list holds blocks (81 writes, 119 trims)", null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--number_ios=100", "--verify=null", "--trim_percentage=50", "--trim_backlog=8"),
	{Name: "trimverify/falloc-file", Ref: "trim verify on a file on tmpfs: the falloc engine trims by punching holes (verify=null: its reads move no data)",
		Args:  args([]string{"--ioengine=falloc"}, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--loops=2"),
		Exact: syncDepth},
	{Name: "trimverify/falloc-zero-fails", Ref: "trim_verify_zero=1 with reads that move no data: the first block read back was trimmed and is not zeroes, EILSEQ in both",
		Args: args([]string{"--ioengine=falloc"}, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=crc32c", "--trim_percentage=50", "--trim_backlog=8"),
		Exit: 1, Exact: []string{"error"}},
	iosRow("trimverify/null-norandommap-backlog", "trim verify with norandommap and verify_backlog: the backlog reads the lowest block of fio's sorted log, and a rewrite leaves the log's count (256 writes, 366 trims, 249 reads)",
		null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8",
		"--verify_backlog=16"),
	iosRow("trimverify/null-norandommap-loops", "trim verify with norandommap and loops=2 on a synchronous engine: one log over both loops, as fio's do_io (512 writes, 763 trims, 225 reads)", null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--loops=2"),
	iosRow("trimverify/null-loops-batch", "trim verify with loops=2: a random map's log is read back in write order, and a trim batch under way goes on into the next loop (fio's trim_batch)", null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--loops=2"),
}

// verifyLogRows are the rows for fio 3.33's verify log without a
// random map (norandommap): a write takes every older block it overlaps
// out of the log, whatever their sizes, verify_backlog reads the lowest
// block, and a synchronous engine's loops= form one log, where an
// asynchronous engine verifies after each.
var verifyLogRows = []Row{
	iosRow("verify/norandommap-bsrange", "norandommap with bsrange: overlapped blocks of other sizes leave the log (108 writes, 59 reads)", []string{"--ioengine=psync"}, "--rw=randwrite", "--bsrange=4k-16k", "--size=1m", "--norandommap", "--verify=crc32c"),
	iosRow("verify/norandommap-bssplit-backlog", "norandommap with bssplit and verify_backlog (50 writes, 41 reads)",
		[]string{"--ioengine=psync"}, "--rw=randwrite", "--bssplit=4k/50:16k/30:64k/20", "--size=1m", "--norandommap", "--verify=crc32c",
		"--verify_backlog=8"),
	iosRow("verify/norandommap-loops-psync", "norandommap with loops=2 on psync: fio's do_io counts no bytes issued for a synchronous engine, so it writes both loops before one verify (512 writes, 225 reads)", []string{"--ioengine=psync"}, "--rw=randwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=crc32c", "--loops=2"),
	iosRow("verify/norandommap-loops-uring", "norandommap with loops=2 on io_uring: fio's do_io ends each loop at size= of queued bytes and verifies it (512 writes, 157+157 reads)", []string{"--ioengine=io_uring"}, "--rw=randwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=crc32c", "--loops=2"),
	{Name: "verify/norandommap-backlog-libaio-depth8", Ref: "verify_backlog at iodepth=8: fio's get_next_verify finds nothing while the log's first block is still being written, so its batches wait (256 writes, 173 reads; 178 before)",
		Args: args([]string{"--ioengine=libaio", "--iodepth=8"}, "--rw=randwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=crc32c",
			"--verify_backlog=16", "--verify_backlog_batch=4")},
	iosRow("verify/io-size-passes", "io_size= past size= with verify: each pass is verified, and the verify reads count towards io_size= as in fio's keep_running (156 writes, 156 reads for 3 MiB)", []string{"--ioengine=psync"}, "--rw=write", "--bsrange=4k-16k", "--size=512k", "--io_size=3m", "--verify=crc32c"),
	iosRow("verify/norandommap-io-size-backlog-uring", "norandommap io_size= with verify_backlog on io_uring: fio's do_io ends at io_size= plus size= of queued writes and backlog reads (195 writes, 190 reads)",
		[]string{"--ioengine=io_uring"}, "--rw=randwrite", "--bs=4k", "--size=512k", "--io_size=1m", "--norandommap", "--verify=crc32c",
		"--verify_backlog=7"),
}
