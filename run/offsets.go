package run

import (
	"fmt"

	"github.com/gofio/gofio/jobfile"
)

// region is the part of one file a job works on, and where the job's
// offset generator stands in it.
type region struct {
	base uint64 // byte offset of the region in the file (offset=)
	size uint64 // region length in bytes
	end  uint64 // file (or device) size, for end-of-file on short reads

	seq     [jobfile.NumDirs]uint64 // next sequential position per direction, relative to base
	nblocks uint64                  // blockalign-sized blocks in the region
	perm    perm                    // random map: this loop's order of blocks
	ctr     uint64                  // next index into perm
	loop    uint64                  // completed passes of the random map
	last    uint64                  // end of the last random I/O, for rw=randread:N
	dist    dist                    // random_distribution other than random
	hasDist bool
}

// offsetGen chooses direction, block size, file and offset for each I/O.
// It allocates nothing per call.
type offsetGen struct {
	rw        jobfile.RW
	random    bool
	randomMap bool
	mixRead   uint64 // percent
	seqNr     uint64 // rw=...:N for random patterns
	seqAdd    int64  // rw=...:N for sequential patterns; negative steps backwards
	seqCount  uint64
	seed      uint64

	bsMin    [jobfile.NumDirs]uint64 // Job.BSMin per direction
	bsMax    [jobfile.NumDirs]uint64 // Job.BSMax per direction
	split    [jobfile.NumDirs][]jobfile.BSSplitEntry
	align    [jobfile.NumDirs]uint64 // blockalign per direction
	unalign  bool
	minAlign uint64 // random-map granularity

	files []region
	cur   int

	rDir, rBS, rOff rng
}

// jobSeed returns the job's random seed: fixed (randseed, or fio's 0x89
// with randrepeat=1) and distinct per job, or from the clock otherwise.
func jobSeed(j *jobfile.Job, index int, fallback uint64) uint64 {
	s := j.RandSeed
	if s == 0 {
		if !j.RandRepeat {
			return fallback ^ uint64(index)*0x9e3779b97f4a7c15
		}
		s = 0x89
	}
	x := s
	// Per job (clone) streams, as fio multiplies its seeds by the thread
	// number.
	x ^= uint64(index+1) * 0x9e370001
	return splitmix(&x)
}

func newOffsetGen(j *jobfile.Job, regions []region, seed uint64) (*offsetGen, error) {
	g := &offsetGen{
		rw:        j.RW,
		random:    j.RW.IsRandom(),
		randomMap: !j.NoRandomMap,
		mixRead:   uint64(j.RWMixRead),
		seed:      seed,
		unalign:   j.BSUnaligned,
		files:     regions,
		rDir:      newRNG(seed ^ 1),
		rBS:       newRNG(seed ^ 2),
		rOff:      newRNG(seed ^ 3),
	}
	if g.random {
		g.seqNr = j.RWSeqNr
	} else {
		g.seqAdd = j.RWSeqAdd
	}
	switch {
	case j.RW.HasRead() && !j.RW.HasWrite():
		g.mixRead = 100
	case j.RW.HasWrite() && !j.RW.HasRead():
		g.mixRead = 0
	}
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		g.bsMin[d], g.bsMax[d] = j.BSMin(d), j.BSMax(d)
		g.split[d] = j.BSSplit[d]
		g.align[d] = j.BlockAlign[d]
		if g.align[d] == 0 {
			g.align[d] = j.BSMin(d)
		}
	}
	var err error
	if g.minAlign, err = offsetAlign(j); err != nil {
		return nil, err
	}
	if k := j.RandomDistribution.Kind; k != "" && k != "random" {
		g.randomMap = false
	}
	for i := range g.files {
		r := &g.files[i]
		r.nblocks = r.size / g.minAlign
		if r.nblocks == 0 {
			return nil, fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.size, g.minAlign)
		}
		fseed := seed ^ uint64(i+1)*0xd6e8feb86659fd93
		r.perm = newPerm(r.nblocks, fseed)
		if k := j.RandomDistribution.Kind; g.random && k != "" && k != "random" {
			d, ok := newDist(k, j.RandomDistribution.Param, r.nblocks, fseed)
			if !ok {
				return nil, distError(j)
			}
			r.dist, r.hasDist = d, true
		}
	}
	return g, nil
}

// offsetAlign returns the unit offsets are chosen in: the smallest
// blockalign (or, without it, the smallest block size) over the
// directions the job issues.
func offsetAlign(j *jobfile.Job) (uint64, error) {
	var m uint64
	for _, d := range []jobfile.Dir{jobfile.DirRead, jobfile.DirWrite} {
		if (d == jobfile.DirRead && !j.RW.HasRead()) || (d == jobfile.DirWrite && !j.RW.HasWrite()) {
			continue
		}
		a := j.BlockAlign[d]
		if a == 0 {
			a = j.BSMin(d)
		}
		if a == 0 {
			return 0, fmt.Errorf("%s: no block size for direction %s", j.Name, d)
		}
		if m == 0 || a < m {
			m = a
		}
	}
	return m, nil
}

// checkOffsets refuses, before any job starts, what newOffsetGen would
// refuse at the job's start: a direction without a block size, a region
// smaller than the offset unit, an unknown random_distribution.
func checkOffsets(j *jobfile.Job, regions []region) error {
	a, err := offsetAlign(j)
	if err != nil {
		return err
	}
	for _, r := range regions {
		if r.size < a {
			return fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.size, a)
		}
	}
	switch k := j.RandomDistribution.Kind; {
	case !j.RW.IsRandom(), k == "", k == "random", k == "zipf", k == "pareto", k == "normal":
		return nil
	}
	return distError(j)
}

func distError(j *jobfile.Job) error {
	return fmt.Errorf("%s: random_distribution=%s is not supported", j.Name, j.RandomDistribution.Kind)
}

func (g *offsetGen) uses(d jobfile.Dir) bool {
	switch d {
	case jobfile.DirRead:
		return g.rw.HasRead()
	case jobfile.DirWrite:
		return g.rw.HasWrite()
	}
	return false
}

// dir picks the direction of the next I/O (rwmixread for mixed patterns).
func (g *offsetGen) dir() jobfile.Dir {
	switch g.mixRead {
	case 100:
		return jobfile.DirRead
	case 0:
		return jobfile.DirWrite
	}
	if g.rDir.below(100) < g.mixRead {
		return jobfile.DirRead
	}
	return jobfile.DirWrite
}

// blockSize picks the length of the next I/O in d: bssplit by weight,
// bsrange uniformly over the multiples of its minimum (any length with
// bs_unaligned), else bs.
func (g *offsetGen) blockSize(d jobfile.Dir) uint64 {
	if sp := g.split[d]; len(sp) > 0 {
		p := uint32(g.rBS.below(100)) + 1
		var sum uint32
		for _, e := range sp {
			sum += e.Pct
			if p <= sum {
				return e.BS
			}
		}
		return sp[len(sp)-1].BS
	}
	if g.bsMax[d] > g.bsMin[d] {
		lo, hi := g.bsMin[d], g.bsMax[d]
		if g.unalign {
			return lo + g.rBS.below(hi-lo+1)
		}
		// Every multiple of the minimum in the range is equally likely.
		return lo + g.rBS.below((hi-lo)/lo+1)*lo
	}
	return g.bsMin[d]
}

// next returns the file index and byte offset for an I/O of length n in
// d. Files are served round-robin, one I/O each (file_service_type's
// default).
func (g *offsetGen) next(d jobfile.Dir, n uint64) (file int, off uint64) {
	file = g.cur
	g.cur++
	if g.cur == len(g.files) {
		g.cur = 0
	}
	r := &g.files[file]
	if n > r.size {
		n = r.size
	}
	if !g.random {
		pos := r.seq[d]
		if pos+n > r.size {
			pos = 0
		}
		next := int64(pos+n) + g.seqAdd
		if next < 0 {
			// Backwards past the start: wrap to the end, as fio's
			// get_next_seq_offset does.
			next = max(int64(r.size)+g.seqAdd, 0)
		}
		r.seq[d] = uint64(next)
		return file, r.base + pos
	}
	g.seqCount++
	if g.seqNr > 1 && (g.seqCount-1)%g.seqNr != 0 && r.last+n <= r.size {
		pos := r.last
		r.last = pos + n
		return file, r.base + pos
	}
	var blk uint64
	switch {
	case r.hasDist:
		blk = r.dist.next(&g.rOff)
	case g.randomMap:
		if r.ctr == r.nblocks {
			r.ctr = 0
			r.loop++
			r.perm.rekey(g.seed ^ (r.loop * 0xa0761d6478bd642f) ^ uint64(file))
		}
		blk = r.perm.at(r.ctr)
		r.ctr++
	default:
		blk = g.rOff.below(r.nblocks)
	}
	pos := blk * g.minAlign
	if pos+n > r.size {
		pos = (r.size - n) / g.minAlign * g.minAlign
	}
	r.last = pos + n
	return file, r.base + pos
}
