package equivalence

// trimVerifyRows are issue 26's trim verify options (trim_percentage,
// trim_backlog, trim_backlog_batch, trim_verify_zero) at iodepth=1, where
// fio 3.33 logs, draws and trims in the same order as gofio: the counts
// and the per-I/O log (direction, length, offset of every trim, write and
// verify read) must be equal. The loop-device row, where trimmed blocks
// really read back as zeroes, is in TestTrim (trim_test.go).
var trimVerifyRows = []Row{
	{Name: "trimverify/null-trimwrite", Ref: "issue 26 trim_percentage=50 trim_backlog=8: 387 trims (256 + the 131 blocks picked), 256 verify reads",
		Args:  args(null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-zero0", Ref: "issue 26 trim_verify_zero=0: trimmed blocks leave the verify list (125 reads)",
		Args:  args(null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--trim_verify_zero=0", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-batch", Ref: "issue 26 trim_backlog=64 trim_backlog_batch=2: the writes end with 2 blocks untrimmed (385 trims, 127 reads)",
		Args:  args(null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=64", "--trim_backlog_batch=2", "--trim_verify_zero=0", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-randtrimwrite-verify-backlog", Ref: "issue 26 trim verify with verify_backlog, whose reads take blocks off the trim list, and tausworthe64",
		Args: args(null, "--rw=randtrimwrite", "--bsrange=4k-16k", "--size=1m", "--verify=null", "--trim_percentage=30", "--trim_backlog=5", "--trim_backlog_batch=3",
			"--verify_backlog=7", "--random_generator=tausworthe64", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-norandommap", Ref: "issue 26 trim verify with norandommap: a rewrite takes the older entry out of fio's sorted log and off the trim list, and the job writes past size= while the list holds blocks (262 writes, 395 trims, 160 reads)",
		Args:  args(null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-norandommap-zero0", Ref: "issue 26 trim verify with norandommap and trim_verify_zero=0 (260 writes, 392 trims, 74 reads)",
		Args:  args(null, "--rw=randtrimwrite", "--bs=4k", "--size=1m", "--norandommap", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--trim_verify_zero=0", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/null-number-ios", Ref: "issue 26 trim verify with number_ios, which counts the list's trims, and past which fio runs while the list holds blocks (81 writes, 119 trims)",
		Args:  args(null, "--rw=trimwrite", "--bs=4k", "--size=1m", "--number_ios=100", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")},
	{Name: "trimverify/falloc-file", Ref: "issue 26 trim verify on a file on tmpfs: the falloc engine trims by punching holes (verify=null: its reads move no data)",
		Args:  args([]string{"--ioengine=falloc"}, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=50", "--trim_backlog=8", "--loops=2"),
		Exact: syncDepth},
	{Name: "trimverify/falloc-zero-fails", Ref: "issue 26 trim_verify_zero=1 with reads that move no data: the first block read back was trimmed and is not zeroes, EILSEQ in both",
		Args: args([]string{"--ioengine=falloc"}, "--rw=trimwrite", "--bs=4k", "--size=1m", "--verify=crc32c", "--trim_percentage=50", "--trim_backlog=8"),
		Exit: 1, Exact: []string{"error"}},
}
