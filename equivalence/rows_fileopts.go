package equivalence

// fileOptionRows are the I/O and file options that gofio refused
// until it ran them: write_barrier, sync_file_range, lockfile, opendir and
// atomic, with fio 3.33's counts.
var fileOptionRows = []Row{
	{Name: "fileopts/write-barrier", Ref: "write_barrier: parsed, no effect in fio 3.33 (only libpmem sets the flag, and nothing reads it)",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--write_barrier=4"), Exact: syncDepth},
	{Name: "fileopts/lockfile", Ref: "lockfile=exclusive and readwrite: numjobs clones on one file share its lock",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\nnumjobs=2\nfilename=l.dat\n[x]\nrw=randwrite\nlockfile=exclusive\n[rw]\nstonewall\nrw=randrw\nlockfile=readwrite\n",
		Exact:   syncDepth},
	{Name: "fileopts/opendir", Ref: "opendir: every regular file under the directory, recursively, read whole",
		Before:  map[string]int{"t/a": 64 << 10, "t/s/b": 128 << 10, "t/s/d/c": 32 << 10, "t/e/f": 8 << 10},
		JobFile: "[r]\nioengine=psync\nrw=randread\nbs=4k\nopendir=t\n[w]\nstonewall\nioengine=psync\nrw=write\nbs=4k\nopendir=t/s\nsize=96k\n",
		Exact:   syncDepth},
	// fio 3.33's fio_nvme_get_info fails the job without setting its
	// error: the JSON says error 0 while the exit status counts it.
	{Name: "fileopts/io-uring-cmd-file", Ref: "ioengine=io_uring_cmd, cmd_type=nvme on a regular file: the job fails with fio's message before its file is made, the other job runs",
		JobFile: "[global]\nsize=256k\nbs=4k\n[cmd]\nioengine=io_uring_cmd\ncmd_type=nvme\nfilename=ng.dat\n[p]\nioengine=psync\nfilename=p.dat\n",
		Exit:    1, Documented: []string{"error"}, Check: uringCmdRefused},
	{Name: "fileopts/atomic", Ref: "atomic=1: fio 3.33 on Linux opens O_DIRECT plus its O_ATOMIC bit, which the kernel ignores",
		Args: args(psync, "--rw=randrw", "--bs=4k", "--size=256k", "--atomic=1"), Exact: syncDepth},
	// fio 3.33 counts a sync_file_range in total_io_u[DDIR_SYNC_FILE_RANGE],
	// two past the end of its 4-entry array: the count lands in
	// short_io_u[1], the write short_ios, and sync total_ios stays 0.
	// gofio counts them as syncs (docs/differences.md), as fdatasync.
	{Name: "fileopts/sync-file-range-psync", Ref: "sync_file_range on psync, every 8 writes; write_iolog's sync_file_range lines as fio's",
		JobFile: "[j]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=256k\nsync_file_range=wait_before,write,wait_after:8\nwrite_iolog=s.log\n",
		Exact:   append([]string{"sync.lat_ns.N"}, syncDepth...), Documented: []string{"sync.total_ios", "write.short_ios"},
		Check: checkAll(syncOverrun("write"), sameIolog("s.log"))},
	{Name: "fileopts/sync-file-range-libaio", Ref: "sync_file_range on libaio (run in fio's queue hook) at iodepth 4",
		Args:  args(libaioDirect, "--rw=write", "--bs=4k", "--size=256k", "--iodepth=4", "--sync_file_range=write:4"),
		Exact: append([]string{"sync.lat_ns.N"}, depthMaps...), Documented: []string{"sync.total_ios", "write.short_ios"}, Check: syncOverrun("write")},
	{Name: "fileopts/sync-file-range-uring", Ref: "sync_file_range on io_uring (IORING_OP_SYNC_FILE_RANGE), every write",
		Args:  args(uringDirect, "--rw=randwrite", "--bs=4k", "--size=256k", "--sync_file_range=write"),
		Exact: append([]string{"sync.lat_ns.N"}, depthMaps...), Documented: []string{"sync.total_ios", "write.short_ios"}, Check: syncOverrun("write")},
}
