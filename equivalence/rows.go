package equivalence

// Engine shorthands for the rows' command lines.
var (
	// uringDirect is io_uring with O_DIRECT (tmpfs takes O_DIRECT).
	uringDirect = []string{"--ioengine=io_uring", "--direct=1"}
	// psync is the psync engine.
	psync = []string{"--ioengine=psync"}
	// null is the null engine.
	null = []string{"--ioengine=null"}
)

// args joins an engine shorthand and a row's options.
func args(engine []string, opts ...string) []string {
	return append(append([]string(nil), engine...), opts...)
}

// offsetsRow returns a row of a depth-1 synchronous job that logs every
// I/O's offset (write_lat_log=l, log_offset=1): its depth maps are exact
// and both programs must issue the same offsets (l_lat.1.log).
func offsetsRow(name, ref string, engine []string, opts ...string) Row {
	return Row{Name: name, Ref: ref, Args: append(args(engine, opts...), "--write_lat_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameOffsets("l_lat.1.log")}
}

// iosRow returns a row of a depth-1 synchronous job that logs every I/O
// (write_bw_log=l, log_offset=1): its depth maps are exact and both
// programs must log the same I/Os, direction, length and offset
// (l_bw.1.log).
func iosRow(name, ref string, engine []string, opts ...string) Row {
	return Row{Name: name, Ref: ref, Args: append(args(engine, opts...), "--write_bw_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameIOs("l_bw.1.log")}
}

// distributionRow returns the row of random_distribution=dist, named
// small/distribution-<name>. fio seeds a file's distribution from a hash
// of its path: both programs run in one directory, and issue the same
// offsets.
func distributionRow(name, dist string) Row {
	return Row{Name: "small/distribution-" + name, Ref: "same job, same numbers, smaller items (" + dist + " block coverage)",
		Args:    append(args(psync, "--rw=randread", "--bs=4k", "--size=8m", "--random_distribution="+dist), "--write_lat_log=l", "--log_offset=1"),
		SameDir: true, Check: sameOffsets("l_lat.1.log")}
}

// depthMaps are the job-relative paths of fio's depth distributions.
var depthMaps = []string{"iodepth_level", "iodepth_submit", "iodepth_complete"}

// syncDepth are the exact fields of a depth-1 synchronous job: its depth
// maps are deterministic.
var syncDepth = depthMaps

// Rows returns the table of the suite: the baseline and sameNumbersRows,
// then the rows other work adds (append your slice here).
func Rows() []Row {
	var rows []Row
	rows = append(rows, baseline...)
	rows = append(rows, sameNumbersRows...)
	rows = append(rows, engineRows...)
	rows = append(rows, optionRows...)
	rows = append(rows, iologRows...)
	rows = append(rows, trimOptionRows...)
	rows = append(rows, trimVerifyRows...)
	rows = append(rows, verifyLogRows...)
	rows = append(rows, lfsrRows...)
	rows = append(rows, fileRows...)
	rows = append(rows, depthRows...)
	rows = append(rows, sqpollRows...)
	rows = append(rows, offsetRows...)
	rows = append(rows, logRows...)
	rows = append(rows, fileOptionRows...)
	rows = append(rows, zbdRows...)
	rows = append(rows, readOnlyRows...)
	rows = append(rows, fio342Rows...)
	for i := range rows {
		rows[i].Fio342 = fio342Differences[rows[i].Name]
	}
	return rows
}

// baseline are plain jobs on each engine that every change must keep
// equal.
var baseline = []Row{
	{Name: "base/null-read", Ref: "baseline", Args: args(null, "--rw=read", "--bs=4k", "--size=16m"), Exact: []string{"iodepth_level"}},
	{Name: "base/null-randrw", Ref: "baseline", Args: args(null, "--rw=randrw", "--bs=4k", "--size=8m", "--iodepth=4"), Exact: []string{"iodepth_level"}},
	{Name: "base/psync-write", Ref: "baseline", Args: args(psync, "--rw=write", "--bs=4k", "--size=4m"), Exact: syncDepth},
	{Name: "base/psync-randread", Ref: "baseline", Args: args(psync, "--rw=randread", "--bs=4k", "--size=8m"), Exact: syncDepth},
	{Name: "base/psync-randwrite-2files", Ref: "baseline", Args: args(psync, "--rw=randwrite", "--bs=8k", "--size=8m", "--nrfiles=2"), Exact: syncDepth},
	{Name: "base/psync-rw-loops", Ref: "baseline", Args: args(psync, "--rw=rw", "--bs=4k", "--size=2m", "--loops=2")},
	{Name: "base/uring-randread", Ref: "baseline", Args: args(uringDirect, "--rw=randread", "--bs=4k", "--size=8m", "--iodepth=8")},
	{Name: "base/uring-write", Ref: "baseline", Args: args(uringDirect, "--rw=write", "--bs=16k", "--size=8m", "--iodepth=4")},
	{Name: "base/psync-fsync", Ref: "baseline", Args: args(psync, "--rw=write", "--bs=4k", "--size=2m", "--fsync=4"), Exact: []string{"sync.total_ios", "sync.lat_ns.N"}},
	{Name: "base/psync-number_ios", Ref: "baseline", Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=8m", "--number_ios=100")},
	{Name: "base/psync-randread-numjobs2", Ref: "baseline (clones: fio's thread numbers seed each)", Args: args(psync, "--rw=randread", "--bsrange=4k-32k", "--size=4m", "--numjobs=2")},
	{Name: "base/psync-randrw-loops2", Ref: "baseline (randrepeat reseeds every loop)", Args: args(psync, "--rw=randrw", "--bssplit=4k/70:16k/30", "--size=4m", "--loops=2")},
	{Name: "base/psync-randseed", Ref: "baseline (randseed= seeds sizes and mix; offsets keep FIO_RANDSEED, as fio seeds before it turns randrepeat off)", Args: args(psync, "--rw=randrw", "--bsrange=4k-16k", "--size=4m", "--randseed=1234", "--rwmixread=70", "--loops=2")},
	{Name: "base/psync-randseed-norepeat", Ref: "baseline (randseed= with randrepeat=0)", Args: args(psync, "--rw=randread", "--bsrange=4k-16k", "--size=4m", "--randseed=99", "--randrepeat=0")},
	{Name: "base/null-randread-seqnr", Ref: "baseline (rw=randread:4)", Args: args(null, "--rw=randread:4", "--bs=4k", "--size=4m")},
	{Name: "base/psync-write-nrfiles3", Ref: "baseline (size= over 3 files)", Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=3m", "--nrfiles=3")},
	{Name: "base/psync-offset-size", Ref: "baseline (found by the suite: size= caps a filesize= region)", Args: args(psync, "--rw=read", "--bs=4k", "--filesize=8m", "--offset=1m", "--size=2m")},
}

// sameNumbersRows are the rows of "Same job, same numbers": the
// smaller differences fio users reported, one row each.
var sameNumbersRows = []Row{
	{
		Name: "item1/randrepeat0", Ref: "same job, same numbers",
		Args: args(psync, "--rw=randread", "--bs=4k", "--size=2m", "--randrepeat=0", "--write_lat_log=l", "--log_offset=1"),
		Runs: 2, Check: newSequenceEachRun("l_lat.1.log"),
	},
	{
		Name: "item2/global-options", Ref: "same job, same numbers",
		// A command-line global before the job file and two [global]
		// sections, the second after the first job.
		Args:    []string{"--runtime=1"},
		JobFile: "[global]\nioengine=null\nbs=4k\nsize=1m\n\n[j]\nrw=randread\n\n[global]\nrw=write\n[k]\nsize=2m\n",
		Exact:   []string{"job options"}, Check: docExact("global options"),
	},
	{
		Name: "item3/bsrange-randmap", Ref: "same job, same numbers",
		Args: args(psync, "--rw=randread", "--bsrange=4k-64k", "--size=64m"),
	},
	{
		Name: "item3/bssplit-randmap-uring", Ref: "same job, same numbers",
		Args: args(uringDirect, "--rw=randwrite", "--bssplit=4k/50:64k/50", "--size=64m", "--iodepth=8"),
	},
	{
		Name: "item4/randrw-separate-bs", Ref: "same job, same numbers",
		Args: args(psync, "--rw=randrw", "--bs=4k,16k", "--size=16m"),
	},
	{
		Name: "item5/norandommap-bsrange", Ref: "same job, same numbers",
		Args: args(psync, "--rw=randread", "--bsrange=4k-64k", "--size=64m", "--norandommap"),
	},
	{
		Name: "item6/filesize-range", Ref: "same job, same numbers",
		Args: args(psync, "--rw=write", "--bs=4k", "--nrfiles=4", "--filesize=1m-4m"),
	},
	{
		Name: "item7/fdatasync", Ref: "same job, same numbers (a documented difference)",
		Args:  args(psync, "--rw=write", "--bs=4k", "--size=4m", "--fdatasync=4"),
		Exact: []string{"sync.lat_ns.N"},
		// fio 3.33 counts an fdatasync in total_io_u[DDIR_DATASYNC], one
		// past the end of its 4-entry array: the count lands in
		// short_io_u[0], the read short_ios, and sync total_ios stays 0.
		// gofio counts fdatasyncs as syncs (docs/differences.md).
		Documented: []string{"sync.total_ios", "read.short_ios"},
		Check:      syncOverrun("read"),
	},
	{
		Name: "item8/fsync-iodepth4", Ref: "same job, same numbers",
		Args: args(uringDirect, "--rw=write", "--bs=4k", "--size=4m", "--fsync=8", "--iodepth=4"),
		// fio issues a sync at every get_io_u while the writes issued are
		// a multiple of 8 and no sync has completed since the last write
		// completion (td->last_was_sync is set at completion). It reaps
		// only once the queue is full, and the writes on tmpfs complete
		// inline, so at each of the 127 multiples of 8 before the last
		// write it fills the free slots with syncs: at most 4 x 127 = 508
		// (fsyncBound). Fewer when a sync of the previous multiple is
		// still in io-wq: fio 466-508 over 56 runs, gofio 471-508, under
		// load 5-15 on 2 cores. The null engine row below has the count
		// without timing, exact.
		Serial: true,
		Tol:    []Tol{{Path: "sync.total_ios", Rel: 0.1}, {Path: "sync.lat_ns.N", Rel: 0.1}},
		Check:  fsyncBound(4, 8),
	},
	{
		Name: "item8/fsync-null", Ref: "(fsync at iodepth 4 without timing)",
		Args:  args(null, "--rw=write", "--bs=4k", "--size=4m", "--fsync=8", "--iodepth=4"),
		Exact: []string{"sync.total_ios", "sync.lat_ns.N"},
	},
	{
		Name: "item9/batch-uring", Ref: "same job, same numbers",
		Args: args(uringDirect, "--rw=randread", "--bs=4k", "--size=16m", "--iodepth=16", "--iodepth_batch_submit=8", "--iodepth_batch_complete_min=4"),
		// gofio counts the maps where it commits, submits and reaps as fio: exact.
		Exact: depthMaps,
	},
	{
		Name: "item9/batch-null", Ref: "same job, same numbers",
		Args:  args(null, "--rw=randread", "--bs=4k", "--size=16m", "--iodepth=16", "--iodepth_batch_submit=8", "--iodepth_batch_complete_min=4"),
		Exact: depthMaps,
	},
	{
		Name: "item10/null-slat", Ref: "same job, same numbers",
		Args:  args(null, "--rw=read", "--bs=4k", "--size=16m"),
		Exact: []string{"read.slat_ns.N", "iodepth_submit", "iodepth_complete"},
	},
	{
		Name: "item11/elapsed-ramp", Ref: "same job, same numbers",
		Args:   args(null, "--rw=read", "--bs=4k", "--size=16m", "--time_based", "--ramp_time=1", "--runtime=1"),
		Exact:  []string{"elapsed"},
		Serial: true, NoCounts: true,
	},
	{
		Name: "item11/elapsed-startdelay", Ref: "same job, same numbers",
		Args:   args(null, "--rw=read", "--bs=4k", "--size=16m", "--time_based", "--startdelay=1", "--runtime=1"),
		Exact:  []string{"elapsed"},
		Serial: true, NoCounts: true,
	},
	{
		Name: "small/ramp-inflight", Ref: "same job, same numbers, smaller items (ramp_time)",
		Args:     args(uringDirect, "--rw=randread", "--bs=4k", "--size=16m", "--iodepth=8", "--time_based", "--ramp_time=1", "--runtime=1"),
		Serial:   true,
		NoCounts: true,
		Check:    rampInFlight(8, 4096),
	},
	{
		Name: "small/ramp-size-based", Ref: "same job, same numbers, smaller items (ramp_time)",
		// The job ends inside its ramp: fio reports its counts, no
		// latencies.
		Args:  args(uringDirect, "--rw=randread", "--bs=4k", "--size=4m", "--iodepth=8", "--ramp_time=5"),
		Exact: []string{"read.clat_ns.N", "read.lat_ns.N", "read.slat_ns.N"},
	},
	distributionRow("normal", "normal:20"),
	distributionRow("zipf", "zipf:1.2"),
	distributionRow("pareto", "pareto:0.9"),
	{
		Name: "small/rate-iops-randrw", Ref: "same job, same numbers, smaller items (rate_iops on randrw)",
		Args:     args(psync, "--rw=randrw", "--bs=4k", "--size=16m", "--rate_iops=1000,500", "--time_based", "--runtime=2"),
		Serial:   true,
		NoCounts: true,
		// fio 1000.0 and 499.75 on an idle machine. Both fall behind when
		// the CPUs are busy, so each run is judged against the rate:
		// gofio must be within 2% of it whenever fio is.
		Check: rateNear(map[string]float64{"read.iops": 1000, "write.iops": 500}, 0.02),
	},
}
