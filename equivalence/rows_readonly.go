package equivalence

// readOnlyRows run --readonly jobs on a file shorter than their region and
// on a missing one: fio 3.33 refuses to lay them out ("refusing extend of
// file due to read-only") and the job reads what is there, a synchronous
// engine failing at the file's end with EIO ("full resid"), an
// asynchronous one counting the reads past it as I/Os of 0 bytes; a
// missing file fails its open with ENOENT. Both leave the scratch
// directory as it was (the file comparison).
var readOnlyRows = []Row{
	{Name: "readonly/short-psync", Ref: "--readonly on a 128 KiB file, size=256k, psync: 33 reads, the last EIO",
		Before: map[string]int{"f": 128 << 10},
		Args:   args(psync, "--readonly", "--filename=f", "--rw=read", "--bs=4k", "--size=256k"),
		Exit:   1, Exact: []string{"error"}},
	{Name: "readonly/short-uring", Ref: "--readonly on a 128 KiB file, size=256k, io_uring randread at depth 8: 64 reads of 0 bytes",
		Before: map[string]int{"f": 128 << 10},
		Args:   args([]string{"--ioengine=io_uring"}, "--readonly", "--filename=f", "--rw=randread", "--bs=4k", "--size=256k", "--iodepth=8"),
		Exact:  []string{"error"}},
	{Name: "readonly/missing", Ref: "--readonly on a missing file: open fails with ENOENT, nothing created",
		Args: args(psync, "--readonly", "--filename=f", "--rw=read", "--bs=4k", "--size=256k"),
		Exit: 1, Exact: []string{"error"}},
}
