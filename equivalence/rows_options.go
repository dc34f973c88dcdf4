package equivalence

import "strings"

// optionRows are the deterministic fio options: the same counts as
// fio 3.33 and the same JSON keys.
var optionRows = []Row{
	{Name: "options/io-size-beyond-size", Ref: "io_size= beyond size=: fio's keep_running starts passes over the file until io_size bytes moved (a third pass cut at 40m)",
		Args: args(psync, "--rw=randrw", "--bsrange=4k-64k", "--size=16m", "--io_size=40m", "--write_lat_log=l", "--log_offset=1"), Exact: syncDepth, Check: sameOffsets("l_lat.1.log")},
	// fio 3.33 ignores tiobench's own options (--size, --dir, ...), so the
	// row runs the profile as fio does: 4 KiB per MiB of memory in each of
	// four files in the working directory.
	{Name: "options/profile-tiobench", Ref: "--profile=tiobench: four stonewalled sync jobs on .fio.tio.1-4, end_fsync on the writes",
		JobFile: "[global]\n", Args: []string{"--profile=tiobench"}, Exact: syncDepth},
	{Name: "options/backwards-read", Ref: "rw=read:-8k (fio's backwards-read.fio)",
		Args: args(psync, "--rw=read:-8k", "--bs=4k", "--size=2m"), Exact: syncDepth},
	{Name: "options/rate-bytes", Ref: "rate= (bytes/s)", Serial: true,
		Args: args(psync, "--rw=read", "--bs=4k", "--size=1m", "--rate=8m"), Exact: syncDepth},
	// thinktime stays far above thinktime_spin: fio 3.33 sleeps for
	// thinktime less the time it spun, in an int, so a spin that overruns
	// thinktime on a loaded machine makes fio sleep for ever (seen with
	// thinktime=200 and thinktime_spin=50).
	{Name: "options/thinktime", Ref: "thinktime, thinktime_blocks, thinktime_spin",
		Args: args(psync, "--rw=randread", "--bs=4k", "--size=1m", "--thinktime=20000", "--thinktime_blocks=16", "--thinktime_spin=50"), Exact: syncDepth},
	{Name: "options/thinktime-iotime", Ref: "thinktime_iotime and rate_ignore_thinktime (size-based: the counts are the size)", Serial: true,
		Args: args(psync, "--rw=randread", "--bs=4k", "--size=1m", "--rate_iops=2000", "--thinktime=20ms", "--thinktime_iotime=50ms", "--rate_ignore_thinktime=1"), Exact: syncDepth},
	{Name: "options/verify-backlog", Ref: "verify_backlog, verify_backlog_batch",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=1m", "--verify=crc32c", "--verify_backlog=16", "--verify_backlog_batch=4")},
	offsetsRow("options/number-ios-loops", "number_ios with loops=: fio's limit is number_ios times loops, reached in the first pass", psync, "--rw=randread", "--bs=4k", "--size=256k", "--number_ios=10", "--loops=3"),
	{Name: "options/loops-verify", Ref: "loops= with verify=: fio's thread_main verifies after every loop, so every block is read back once per loop",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--loops=3", "--verify=md5")},
	{Name: "options/loops-verify-uring", Ref: "loops= with verify= at iodepth 8, verify_backlog",
		Args: args(uringDirect, "--rw=write", "--bs=4k", "--size=256k", "--loops=2", "--iodepth=8", "--verify=crc32c", "--verify_backlog=16")},
	{Name: "options/verify-interval", Ref: "verify_interval, verify_fatal, verify_dump",
		Args: args(psync, "--rw=write", "--bs=8k", "--size=1m", "--verify=md5", "--verify_interval=1k", "--verify_fatal=1", "--verify_dump=1")},
	{Name: "options/flow", Ref: "flow, flow_id, flow_sleep (size-based: the counts are the sizes)",
		JobFile: "[global]\nioengine=psync\nbs=4k\nflow_id=3\nflow_sleep=100\n[a]\nrw=read\nsize=1m\nflow=1\nfilename=a.dat\n[b]\nrw=read\nsize=2m\nflow=2\nfilename=b.dat\n"},
	{Name: "options/null-filesize", Ref: "corpus: t0019-t0022 size the null engine by filesize=",
		Args: args(null, "--rw=randread", "--bs=4k", "--filesize=1m"), Exact: syncDepth},
	{Name: "options/wait-for", Ref: "wait_for",
		JobFile: "[global]\nioengine=psync\nbs=4k\n[w]\nrw=write\nsize=1m\nfilename=w.dat\n[r]\nnew_group\nwait_for=w\nrw=read\nsize=1m\nfilename=w.dat\n"},
	{Name: "options/unified-mixed", Ref: "unified_rw_reporting=mixed: one \"mixed\" direction, no read/write/trim/sync",
		Args:  args(psync, "--rw=randrw", "--bs=4k", "--size=2m", "--unified_rw_reporting=mixed"),
		Exact: append(mixedCounts(), syncDepth...)},
	{Name: "options/unified-both", Ref: "unified_rw_reporting=both: the directions, then \"mixed\"",
		Args:  args(psync, "--rw=randrw", "--bs=4k", "--size=2m", "--unified_rw_reporting=both"),
		Exact: append(mixedCounts(), syncDepth...)},
	offsetsRow("options/zone-strided-read", "zonemode=strided: sequential I/O, zonesize < zonerange, zoneskip", psync, "--rw=read", "--bs=4k", "--filesize=1m", "--size=256k", "--zonemode=strided", "--zonesize=16k", "--zonerange=64k", "--zoneskip=8k"),
	offsetsRow("options/zone-strided-randrw", "zonemode=strided: random I/O within each zone, the map reset per zonerange, a short end with zoneskip", psync, "--rw=randrw", "--bs=4k", "--filesize=1m", "--size=256k", "--zonemode=strided", "--zonesize=16k", "--zonerange=64k", "--zoneskip=8k"),
	offsetsRow("options/zone-strided-big-zone", "zonemode=strided: zonesize > zonerange keeps the zone, bsrange", psync, "--rw=randread", "--bsrange=4k-16k", "--filesize=1m", "--size=256k", "--zonemode=strided", "--zonesize=32k", "--zonerange=16k"),
	offsetsRow("options/zone-strided-skip-pct", "zoneskip=N% with zonemode=strided: fio 3.33 skips 2^64-1-N bytes (each zone starts N+1 bytes before the last range's end)", psync, "--rw=randrw", "--bs=4k", "--filesize=1m", "--size=512k", "--zonemode=strided", "--zonesize=32k", "--zonerange=64k", "--zoneskip=10%"),
	{Name: "options/offset-increment-pct", Ref: "offset_increment=N%: of the shared file as the jobs before laid it out, clones in fio's order (subjobs 0, 2, 1), rounded up to bs",
		Args:  args(psync, "--rw=randread", "--bs=4k", "--size=96k", "--numjobs=3", "--filename=s.dat", "--offset=4k", "--offset_increment=30%", "--write_lat_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameOffsetsEach("l_lat.1.log", "l_lat.2.log", "l_lat.3.log")},
	{Name: "options/offset-pct", Ref: "offset=N% and offset_increment in bytes of a file laid out with filesize=, rounded up to bs",
		Args:  args(psync, "--rw=read", "--bs=4k", "--filesize=1001k", "--size=64k", "--numjobs=2", "--filename=s.dat", "--offset=10%", "--offset_increment=100k", "--write_lat_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameOffsetsEach("l_lat.1.log", "l_lat.2.log")},
	{Name: "options/cmdprio-bssplit", Ref: "cmdprio_bssplit with per-priority class/level, per direction: fio's prio_state draws, the \"prios\" stats",
		Args:  args(uringDirect, "--rw=randrw", "--bssplit=4k/50:8k/50", "--cmdprio_bssplit=4k/30/1/3:4k/20/2/5:8k/50,8k/100/3/0", "--size=1m"),
		Check: samePrios("read", "write"), Root: "the real-time I/O priority class (1) of its cmdprio_bssplit (CAP_SYS_ADMIN)"},
	{Name: "options/cmdprio-percentage", Ref: "cmdprio_percentage with cmdprio_class and cmdprio: the \"prios\" stats",
		Args:  args(uringDirect, "--rw=randread", "--bs=4k", "--size=1m", "--cmdprio_percentage=30", "--cmdprio_class=2", "--cmdprio=4"),
		Check: samePrios("read")},
	offsetsRow("options/zoned", "random_distribution=zoned: fio's zone_state picks the range, norandommap", psync, "--rw=randrw", "--bs=4k", "--size=1m", "--random_distribution=zoned:50/10:30/20:20/70"),
	offsetsRow("options/zoned-abs", "random_distribution=zoned_abs with bsrange and two loops", psync, "--rw=randread", "--bsrange=4k-16k", "--size=2m", "--loops=2", "--random_distribution=zoned_abs:60/128k:40/1m"),
	offsetsRow("options/zoned-past-end", "random_distribution=zoned_abs past the file's end ends the job early (fio: 3 I/Os)", psync, "--rw=randread", "--bs=4k", "--size=1m", "--random_distribution=zoned_abs:50/64k:50/2m"),
	offsetsRow("options/zoned-strided", "random_distribution=zoned within zonemode=strided zones", psync, "--rw=randrw", "--bs=4k", "--filesize=1m", "--size=256k", "--zonemode=strided", "--zonesize=16k", "--zonerange=64k", "--random_distribution=zoned:80/20:20/80"),
	{Name: "options/latency-target", Ref: "latency_target, latency_window, latency_percentile: on the null engine every window meets 1 s, so the search doubles to iodepth and ends after its final window",
		Args:     args(null, "--rw=randread", "--bs=4k", "--size=1g", "--time_based", "--runtime=300", "--iodepth=8", "--latency_target=1s", "--latency_window=20ms", "--latency_percentile=99"),
		NoCounts: true, Exact: []string{"latency_depth", "latency_target", "latency_percentile", "latency_window"}},
	{Name: "options/latency-target-run", Ref: "latency_run: the search never settles, so the job runs its runtime at the top depth",
		Args:     args(null, "--rw=randread", "--bs=4k", "--size=1g", "--time_based", "--runtime=300ms", "--iodepth=4", "--latency_target=1s", "--latency_window=10ms", "--latency_percentile=99", "--latency_run=1"),
		NoCounts: true, Exact: []string{"latency_depth", "latency_target", "latency_percentile", "latency_window"}},
	{Name: "options/steadystate-attained", Ref: "steadystate, ss_dur: two samples of a non-zero rate are within 200% of their mean, so the job ends at steady state",
		Args:     args(null, "--rw=read", "--bs=4k", "--size=100g", "--time_based", "--runtime=300", "--ss=iops:200%", "--ss_dur=2"),
		NoCounts: true, Exact: []string{"steadystate.ss", "steadystate.duration", "steadystate.attained"}},
	{Name: "options/steadystate-group", Ref: "steadystate with numjobs and group_reporting: one window for the group",
		Args:     args(null, "--rw=read", "--bs=4k", "--size=100g", "--time_based", "--runtime=300", "--numjobs=2", "--group_reporting", "--ss=iops_slope:1e12", "--ss_dur=2", "--ss_ramp=1"),
		NoCounts: true, Exact: []string{"steadystate.ss", "steadystate.duration", "steadystate.attained"}},
	{Name: "options/steadystate-not-attained", Ref: "steadystate: a deviation is never below 0%, so the job runs its runtime",
		Args:     args(null, "--rw=read", "--bs=4k", "--size=100g", "--time_based", "--runtime=1500ms", "--ss=bw:0%", "--ss_dur=1"),
		NoCounts: true, Exact: []string{"steadystate.ss", "steadystate.duration", "steadystate.attained"}},
	{Name: "options/buffer-compress-dedupe", Ref: "buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage: fio's bytes",
		Args:  args(psync, "--rw=randwrite", "--bs=4k", "--size=1m", "--buffer_compress_percentage=50", "--buffer_compress_chunk=1k", "--dedupe_percentage=30"),
		Exact: syncDepth, Check: sameData},
	{Name: "options/dedupe-working-set-global", Ref: "dedupe_mode=working_set, dedupe_working_set_percentage, dedupe_global: fio's bytes",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=512k\nrw=write\ndedupe_percentage=50\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\ndedupe_global=1\n[a]\nfilename=a.dat\n[b]\nfilename=b.dat\n",
		Check:   sameData},
	{Name: "options/buffer-refill-layout", Ref: "refill_buffers and the layout of a read-write job: fio's bytes",
		Args: args(psync, "--rw=randrw", "--bs=4k", "--size=1m", "--refill_buffers", "--random_generator=tausworthe64"), Exact: syncDepth, Check: sameData},
	{Name: "options/serialize-overlap", Ref: "serialize_overlap: random writes at iodepth 8 over 64 blocks wait for the overlapping ones in flight; the same I/Os",
		Args: args(uringDirect, "--rw=randwrite", "--bs=4k", "--size=256k", "--iodepth=8", "--serialize_overlap=1", "--norandommap", "--loops=4")},
	{Name: "options/verify-offset", Ref: "verify_offset: the header 100 bytes into each block, written and verified",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--verify=crc32c", "--verify_offset=100"), Check: magicAt(4096, 100)},
	// fio's t/jobs/t0028-c6cade16.fio (added after 3.33), on the null
	// engine as there, then pointed at a scratch file (psync,
	// filename=t0028.dat), whose bytes are fio's.
	{Name: "options/buffer-pattern-t0028", Ref: "buffer_pattern=\"abcd\"-120xdeadface: fio's t/jobs/t0028, as it is and with filename= a scratch file",
		JobFile: t0028 + "\n[file]\n" + strings.TrimPrefix(strings.Replace(t0028, "ioengine=null", "ioengine=psync\nfilename=t0028.dat", 1), "[test]\n"),
		Check:   sameData},
	{Name: "options/buffer-pattern-parts", Ref: "buffer_pattern of every lib/pattern.c part: string, decimal, hex, the 0x look-back: fio's bytes",
		Args: args(psync, "--rw=write", "--bs=4k", "--size=64k", `--buffer_pattern="abcd"-120xdeadface 66"x"0xff0x1"z"`), Exact: syncDepth, Check: sameData},
	{Name: "options/verify-pattern-offset", Ref: "verify_pattern with fio's %o (the I/O's offset, little-endian, in the pattern): fio's bytes, verified",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--verify=pattern", `--verify_pattern="ab"%o0xcd`), Exact: syncDepth, Check: sameData},
}

// t0028 is fio's t/jobs/t0028-c6cade16.fio.
const t0028 = "[test]\nsize=16k\nreadwrite=write\nbuffer_pattern=\"abcd\"-120xdeadface\nioengine=null\n"

// mixedCounts are the count fields of the "mixed" object that
// unified_rw_reporting=mixed and both add, with its latency sample counts.
func mixedCounts() []string {
	var p []string
	for _, f := range append(countFields, "clat_ns.N", "lat_ns.N") {
		p = append(p, "mixed."+f)
	}
	return p
}
