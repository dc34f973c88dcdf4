package equivalence

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// zbdJob is a job file for zonemode=zbd on a scratch file, as fio 3.33
// emulates zones on a regular file that already has its size: a first job
// lays out 16 MiB of z.img, and the zbd job (job 2, psync, 64 KiB blocks,
// zones of 1 MiB) runs after it with opts, logging each I/O's offset.
func zbdJob(opts ...string) string {
	return "[lay]\nioengine=psync\nrw=write\nbs=1m\nsize=16m\nfilename=z.img\n\n" +
		"[zbd]\nstonewall\nioengine=psync\nfilename=z.img\nzonemode=zbd\nzonesize=1m\nbs=64k\n" +
		"write_lat_log=l\nlog_offset=1\n" + strings.Join(opts, "\n") + "\n"
}

// zbdRows are zonemode=zbd, the z suffix and zone_reset_threshold and
// zone_reset_frequency on an emulated device: the same counts, the same
// offsets in the same order, and the zone resets fio's offsets imply are
// the ones gofio reports.
var zbdRows = []Row{
	{Name: "zbd/seq-write", Ref: "zonemode=zbd on a file: sequential writes at the write pointers, zonecapacity below the zone size",
		JobFile: zbdJob("rw=write", "size=8m", "zonecapacity=960k"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/seq-write-unaligned-bs", Ref: "zonemode=zbd with 12k blocks in 1 MiB zones: each zone is full 4k before its end, so 4 MiB takes 342 writes, two of them after a reset",
		JobFile: zbdJob("rw=write", "bs=12k", "size=4m"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/randwrite-max-open", Ref: "fio examples/zbd-rand-write.fio: random writes at the write pointers of at most 4 open zones, full zones reset",
		JobFile: zbdJob("rw=randwrite", "max_open_zones=4"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/z-suffix", Ref: "the z suffix: offset=3z size=6z io_size=4z, job_max_open_zones",
		JobFile: zbdJob("rw=randwrite", "offset=3z", "size=6z", "io_size=4z", "max_open_zones=3", "job_max_open_zones=2"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/reset-threshold", Ref: "zone_reset_threshold=0.2 and zone_reset_frequency=0.25: past a fifth of the region every fourth write resets its zone",
		JobFile: zbdJob("rw=randwrite", "zone_reset_threshold=0.2", "zone_reset_frequency=0.25"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/uring-randwrite", Ref: "zonemode=zbd on io_uring at iodepth=8: a full zone closes when its last write completes, resets wait for the writes in flight (fio's io_u_quiesce)",
		JobFile: zbdJob("rw=randwrite", "ioengine=io_uring", "iodepth=8", "max_open_zones=4"), Check: zbdSame(1 << 20)},
	{Name: "zbd/verify", Ref: "zonemode=zbd with verify=crc32c: the zones are reset before the writes, a full zone is not written again, every block read back",
		JobFile: zbdJob("rw=randwrite", "size=8m", "max_open_zones=2", "verify=crc32c"), Exact: syncDepth, Check: zbdSameWrites(1 << 20)},
	{Name: "zbd/io-size-beyond-size", Ref: "io_size= twice size= with zonemode=zbd: a second pass over the zones, whose writes reset them",
		JobFile: zbdJob("rw=randwrite", "size=8m", "io_size=16m", "max_open_zones=3"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/randrw", Ref: "zonemode=zbd randrw: the first I/O a write, reads within written data",
		JobFile: zbdJob("rw=randrw", "size=8m", "max_open_zones=2"), Exact: syncDepth, Check: zbdSame(1 << 20)},
	{Name: "zbd/shared-jobs", Ref: "zonemode=zbd with jobs racing for one file's zones (numjobs=2 on psync, io_uring and libaio at iodepth=4, a psync randrw): fio's zone locks keep each zone's writes sequential across the jobs",
		JobFile: zbdSharedJob, Runs: 3, Check: zbdShared(1<<20, 64<<10)},
}

// zbdSharedJob lays out 16 MiB of z.img and runs five zbd jobs on it at
// once, each with io_size=8m over all 16 zones of 1 MiB, at most 4 open:
// two psync writers (numjobs), an io_uring and a libaio writer and a psync
// randrw job, each logging its I/O's offsets.
var zbdSharedJob = "[lay]\nioengine=psync\nrw=write\nbs=1m\nsize=16m\nfilename=z.img\n\n" +
	"[global]\nfilename=z.img\nzonemode=zbd\nzonesize=1m\nbs=64k\nio_size=8m\nmax_open_zones=4\nrw=randwrite\nwrite_lat_log=l\nlog_offset=1\n\n" +
	"[s]\nstonewall\nioengine=psync\nnumjobs=2\n\n[u]\nioengine=io_uring\niodepth=4\n\n[a]\nioengine=libaio\niodepth=4\n\n[m]\nioengine=psync\nrw=randrw\n"

// zbdShared returns a Check of jobs that share a file's zones (zoneSize
// bytes, written in blocks of bs), whose order across the jobs is timing,
// in fio as in gofio: in every run of both programs the writes of all the
// zbd jobs (every job but the first) are sequential in each zone between
// resets, which fio's zone locks guarantee: block k of a zone is written
// as often as block 0, or once less for the blocks past the zone's last
// write pointer. In gofio the zone resets each job reports add up to
// those the writes imply (one per write at a zone's start but the first)
// and lie between that job's writes at a zone's start, less one per zone
// it may have been the first to write, and all of them; and the mean of
// the runs' totals is fio's within a tenth.
func zbdShared(zoneSize, bs uint64) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		var totals [2][]uint64
		for p, outs := range [2][]*Outcome{fio, gofio} {
			for i, o := range outs {
				jobs := o.Doc.Jobs()
				counts := map[uint64][]uint64{} // per zone, writes per block
				var total uint64
				for k := 2; k <= len(jobs); k++ {
					offs, err := logWrites(o, fmt.Sprintf("l_lat.%d.log", k))
					if err != nil {
						return append(diffs, err.Error())
					}
					countZoneWrites(counts, offs, zoneSize, bs)
					starts, firsts := uint64(0), map[uint64]bool{}
					for _, off := range offs {
						if off%zoneSize == 0 {
							starts++
							firsts[off/zoneSize] = true
						}
					}
					if p == 1 {
						got, _ := Number(jobs[k-1], "gofio.state.zone_resets")
						if r := uint64(got); r > starts || r+uint64(len(firsts)) < starts {
							diffs = append(diffs, fmt.Sprintf("gofio run %d job %d: %d zone resets reported, %d writes at a zone's start in %d zones", i, k, r, starts, len(firsts)))
						}
						total += uint64(got)
					}
				}
				implied, bad := zoneSequential(counts)
				for _, b := range bad {
					diffs = append(diffs, fmt.Sprintf("%s run %d: %s", o.Program, i, b))
				}
				if p == 1 && total != implied {
					diffs = append(diffs, fmt.Sprintf("gofio run %d: the jobs report %d zone resets, their writes imply %d", i, total, implied))
				}
				totals[p] = append(totals[p], implied)
			}
		}
		// The totals vary with the zones left partly written at the end
		// (fio 22-25 over 6 runs of zbdSharedJob, gofio 22-25): the
		// means of the runs are compared, within a tenth of fio's.
		mean := func(v []uint64) float64 {
			var sum uint64
			for _, x := range v {
				sum += x
			}
			return float64(sum) / float64(len(v))
		}
		if f, g := mean(totals[0]), mean(totals[1]); math.Abs(f-g) > max(1, f/10) {
			diffs = append(diffs, fmt.Sprintf("zone resets per run: fio %v, gofio %v: the means differ by more than a tenth", totals[0], totals[1]))
		}
		return diffs
	}
}

// countZoneWrites adds the writes at offs, blocks of bs in zones of
// zoneSize bytes, to counts: per zone, the writes of each block.
func countZoneWrites(counts map[uint64][]uint64, offs []uint64, zoneSize, bs uint64) {
	for _, off := range offs {
		z := off / zoneSize
		if counts[z] == nil {
			counts[z] = make([]uint64, zoneSize/bs)
		}
		counts[z][off%zoneSize/bs]++
	}
}

// zoneSequential checks the per-zone write counts of countZoneWrites
// against what fio's zone locks guarantee to the jobs that share the
// zones: each zone written sequentially between resets, so block k is
// written as often as block 0, or once less past the zone's last write
// pointer. It returns the resets the counts imply, one per write at a
// zone's start but the first, and a line per zone that breaks the rule.
func zoneSequential(counts map[uint64][]uint64) (implied uint64, bad []string) {
	for z, c := range counts {
		if c[0] == 0 {
			bad = append(bad, fmt.Sprintf("zone %d's blocks written %v times: not from its start", z, c))
			continue
		}
		implied += c[0] - 1
		m := 0
		for m < len(c) && c[m] == c[0] {
			m++
		}
		for _, n := range c[m:] {
			if n != c[0]-1 {
				bad = append(bad, fmt.Sprintf("zone %d's blocks written %v times: not sequential between resets", z, c))
				break
			}
		}
	}
	return implied, bad
}

// zbdSame returns a Check that the zbd job (job 2) logged the same offsets
// in fio and gofio, and that the zone resets its writes imply in fio's log
// (zoneSize zones) are the ones gofio reports.
func zbdSame(zoneSize uint64) func(fio, gofio []*Outcome) []string {
	const log = "l_lat.2.log"
	same := sameOffsets(log)
	return func(fio, gofio []*Outcome) []string {
		diffs := same(fio, gofio)
		for i := range fio {
			want, err := logResets(fio[i], log, zoneSize)
			if err != nil {
				return append(diffs, err.Error())
			}
			jobs := gofio[i].Doc.Jobs()
			if len(jobs) < 2 {
				return append(diffs, "gofio ran fewer than 2 jobs")
			}
			got, _ := Number(jobs[1], "gofio.state.zone_resets")
			if uint64(got) != want {
				diffs = append(diffs, fmt.Sprintf("run %d: fio's writes reset %d zones, gofio reports %v", i, want, got))
			}
		}
		return diffs
	}
}

// zbdSameWrites is zbdSame for the writes alone: a verify job's reads
// come back in another order (fio reads a random job's blocks back in the
// order it wrote them, gofio in offset order).
func zbdSameWrites(zoneSize uint64) func(fio, gofio []*Outcome) []string {
	const log = "l_lat.2.log"
	return sameSeq(log, log+" writes", "write", logWrites)
}

// logWrites returns the offsets of the writes in an I/O log, in order.
func logWrites(o *Outcome, name string) ([]uint64, error) {
	recs, err := logRecords(o, name)
	var offs []uint64
	for _, f := range recs {
		if len(f) < 5 || f[2] != "1" {
			continue
		}
		off, perr := strconv.ParseUint(f[4], 10, 64)
		if perr != nil {
			return nil, fmt.Errorf("%s: bad line %q", name, strings.Join(f, ","))
		}
		offs = append(offs, off)
	}
	return offs, err
}

// logResets counts the zone resets a zbd job's I/O log implies: a write
// below the write pointer of its zone found its zone reset.
func logResets(o *Outcome, name string, zoneSize uint64) (uint64, error) {
	recs, err := logRecords(o, name)
	wp := map[uint64]uint64{}
	var resets uint64
	for _, f := range recs {
		if len(f) < 5 || f[2] != "1" {
			continue // not a write
		}
		n, err1 := strconv.ParseUint(f[3], 10, 64)
		off, err2 := strconv.ParseUint(f[4], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("%s: bad line %q", name, strings.Join(f, ","))
		}
		z := off / zoneSize
		if w, ok := wp[z]; ok && off < w {
			resets++
		}
		wp[z] = off + n
	}
	return resets, err
}
