package equivalence

// fileOptionRows are issue 26's I/O and file options that gofio refused
// until it ran them: write_barrier, sync_file_range, lockfile, opendir and
// atomic, with fio 3.33's counts.
var fileOptionRows = []Row{
	{Name: "fileopts/write-barrier", Ref: "issue 26 write_barrier: parsed, no effect in fio 3.33 (only libpmem sets the flag, and nothing reads it)",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--write_barrier=4"), Exact: syncDepth},
}
