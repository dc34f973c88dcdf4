package equivalence

// fileRows are fio's file-setup options: how files are laid out, created,
// appended to, synced and unlinked, with the same counts and the same
// files as fio 3.33.
var fileRows = []Row{
	{Name: "files/write-setup", Ref: "issue 26 overwrite, create_fsync, fsync_on_close, unlink_each_loop, unique_filename, disk_util",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--nrfiles=2", "--loops=2", "--overwrite=1", "--create_fsync=0",
			"--fsync_on_close=1", "--unlink_each_loop=1", "--unique_filename=0", "--disk_util=0"),
		Exact: syncDepth},
	{Name: "files/create-append", Ref: "issue 26 create_only (files laid out, no I/O), create_on_open (no layout), file_append (I/O past the end)",
		JobFile: "[global]\nioengine=psync\nbs=4k\n" +
			"[only]\nrw=read\nsize=256k\nfilename=a.dat\ncreate_only=1\n" +
			"[open]\nrw=write\nsize=128k\nfilename=b.dat\ncreate_on_open=1\n" +
			"[append]\nstonewall\nrw=randrw\nsize=128k\nfilename=a.dat\nfile_append=1\n"},
}
