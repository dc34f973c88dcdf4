package iogen

import (
	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/sprandom"
	"github.com/gofio/gofio/internal/zbd"
	"github.com/gofio/gofio/jobfile"
)

// Region is the part of one file a job works on, and where the job's
// offset generator stands in it.
type Region struct {
	Base  uint64 // byte offset of the region in the file (fio's file_offset)
	Start uint64 // the region's first base (fio's get_start_offset)
	Size  uint64 // region length in bytes (fio's io_size)
	End   uint64 // file (or device) size (fio's real_file_size)
	Name  string // the file's path (fio's file_name), which seeds distributions

	lastPos   [jobfile.NumDirs]uint64 // end of the last I/O per direction, absolute
	lastStart [jobfile.NumDirs]uint64 // start of the last I/O per direction, absolute; ^0 before the first (fio's last_start)
	Done      bool                    // no offset left this loop (fio_file_done)
	amap      *fiorand.Axmap          // random map; nil with norandommap
	lfsr      fiorand.LFSR            // random_generator=lfsr: the file's LFSR, used when hasLfsr
	hasLfsr   bool
	dist      fiorand.Dist // random_distribution other than random
	hasDist   bool
	idx       int // the region's index in Offsets.Files
}

// Offsets chooses direction, file, offset and length for each I/O by
// fio 3.33's rules (io_u.c: get_rw_ddir, get_next_file_rr,
// get_next_offset, get_next_buflen, mark_random_map), drawing from fio's
// generators with fio's seeds, so that a job issues what fio issues. It
// allocates nothing per call.
type Offsets struct {
	RW     jobfile.RW
	random bool
	// mixed is RW reads and writes; otherwise every I/O goes in oneDir.
	// Both are RW's, decided once rather than per I/O.
	mixed  bool
	oneDir jobfile.Dir
	// simpleRand is a job whose every I/O is a uniform random block of
	// one size in one direction of one file, with or without the random
	// map: Fill takes fillSimpleRand, the general rules' outcome for it
	// in one call instead of six.
	simpleRand bool
	// trimWrite is fio's td_trimwrite (rw=trimwrite, randtrimwrite):
	// each block is trimmed, then written. randTrimWrite is
	// randtrimwrite, whose writes go where the trim before them went.
	trimWrite, randTrimWrite bool
	randomMap                bool
	timeBased                bool
	RWMix                    [2]uint64 // rwmixread, rwmixwrite
	seqNr                    uint64    // rw=randread:N: a new random offset every N I/Os
	seqNrLeft                uint64    // fio's td->ddir_seq_nr
	seqAdd                   int64     // rw=write:N: hole after each sequential I/O; negative steps backwards

	MinBS, MaxBS, ba [jobfile.NumDirs]uint64
	rwMinBS          uint64 // the random map's block size
	split            [jobfile.NumDirs][]jobfile.BSSplitEntry
	unaligned        bool

	Files  []Region
	next   int // fio's td->next_file
	NrDone int

	// file_service_type (fio's __get_next_file): svc is its kind,
	// svcNr its file_service_nr; svcFile is the file being served (fio's
	// file_service_file; -1 once it is closed: done, reset or a new
	// pass) and svcLeft the I/Os it has left (file_service_left).
	svc      fileService
	svcNr    uint32
	svcFile  int
	svcLeft  uint32
	svcParam float64
	svcCtr   float64
	rFile    fiorand.Frand // random: fio's next_file_state
	fileDist fiorand.Dist  // zipf, pareto, normal: next_file_zipf or next_file_gauss

	seeds  fiorand.Seeds
	verify bool
	// fio's generators: random_state, bsrange_state[], rwmix_state.
	rOff fiorand.Frand
	rBS  [jobfile.NumDirs]fiorand.Frand
	rMix fiorand.Frand
	// percentage_random: per direction the share of I/Os that go on
	// sequentially, drawn from fio's seq_rand_state (every direction
	// seeded alike, as in fio).
	seqPct [jobfile.NumDirs]uint64
	rSeq   [jobfile.NumDirs]fiorand.Frand
	// identical is rw_sequencer=identical.
	identical bool

	// fio's td->io_issues, td->rwmix_ddir and td->rwmix_issues.
	issues      [jobfile.NumDirs]uint64
	rwmixDir    jobfile.Dir
	rwmixIssues uint64
	// pending is a direction dir chose that no fill has used yet (the
	// loop asks for it first to apply rate_iops), so that waiting draws
	// nothing more from the rwmix generator.
	pending    jobfile.Dir
	hasPending bool

	// zonemode=strided: I/O of zoneSize bytes in each zone of zoneRange
	// bytes, then on past zoneSkip more; zoneBytes is fio's
	// td->zone_bytes.
	strided                       bool
	zoneSize, zoneRange, zoneSkip uint64
	zoneBytes                     uint64

	// random_distribution=zoned and zoned_abs: per direction the range
	// each of the 100 percentile draws of rZone (fio's zone_state) falls
	// in; nil for a direction that draws uniformly. absOverflows counts
	// draws of a zoned_abs range past the end of the file, which end
	// the file's loop as in fio.
	zoned        [jobfile.NumDirs]*[100]zoneBounds
	zonedAbs     bool
	rZone        fiorand.Frand
	AbsOverflows uint64

	// zbd is zonemode=zbd's zone state, nil without: it moves each I/O
	// to where the zones let it go (SetZones).
	zbd *zbd.Job

	// spr is sprandom's generator of the writes' blocks, nil without;
	// sprDone says it is spent, which ends the job (fio's td->done).
	spr     *sprandom.Gen
	sprDone bool
}

// fileServiceShift is fio's FIO_FSERVICE_SHIFT: a non-uniform file draw
// is over nrfiles<<10 values, shifted back down.
const fileServiceShift = 10

// WritesIssued is fio's io_issues[DDIR_WRITE], which fsync= and
// fdatasync= count.
func (g *Offsets) WritesIssued() uint64 { return g.issues[jobfile.DirWrite] }

// Fill chooses the next I/O: direction, file (round robin over the files
// not done), offset and length, marks it in the random map and counts it
// as issued. ok is false when every file is done for this loop.
func (g *Offsets) Fill() (d jobfile.Dir, file int, off, n uint64, ok bool) {
	if g.simpleRand && g.NrDone == 0 && (!g.hasPending || g.pending == g.oneDir) {
		return g.fillSimpleRand()
	}
	resets := 0
	for g.NrDone < len(g.Files) {
		d = g.Dir()
		g.hasPending = false
		file = g.nextFile()
		r := &g.Files[file]
		if g.zbd != nil {
			d = g.zbd.AdjustDir(file, d)
		}
		if g.trimWrite {
			// fio's set_rw_ddir: a trim, then the write of the block
			// it trimmed, judged by where the file's last ones started.
			d = jobfile.DirWrite
			if r.lastStart[jobfile.DirWrite] == r.lastStart[jobfile.DirTrim] {
				d = jobfile.DirTrim
			}
		}
		if g.strided {
			g.strideZone(r, d)
		} else if g.zbd != nil {
			g.zbd.Setup(file, d, &r.lastPos[d], &r.Base, r.Start, &g.zoneBytes)
		}
		if off, n, ok = g.fillFile(r, d); ok {
			r.lastStart[d] = off
			r.lastPos[d] = off + n
			g.issues[d]++
			g.zoneBytes += n
			return d, file, off, n, true
		}
		// fio's set_io_u_file closes the file; a non-uniform service
		// starts it over, the others are done with it for this pass.
		g.svcFile = -1
		if g.svc >= svcZipf {
			// fio would draw for ever if no file could take an I/O
			// even after its reset; gofio ends the pass instead.
			if resets++; resets <= 2*len(g.Files) {
				g.resetFile(r)
				continue
			}
		}
		r.Done = true
		g.NrDone++
	}
	return d, 0, 0, 0, false
}

// fillSimpleRand is Fill for a simpleRand job whose one file is not done:
// what Dir, nextFile, fillFile, offset, randBlock, randOffset and buflen
// decide for it, drawing the same numbers in the same order. nextFile
// has only the one file to give and no draw to make for it.
func (g *Offsets) fillSimpleRand() (d jobfile.Dir, file int, off, n uint64, ok bool) {
	d = g.oneDir
	g.hasPending = false
	r := &g.Files[0]
	// randBlock and randOffset: a uniform draw, moved to the next free
	// block; a time_based job starts the file over when the map is full.
	var b uint64
	if last := g.lastBlock(r, d); last != 0 {
		b = uint64(float64(last) * g.rOff.Frac())
		ok = true
		if r.amap != nil && r.amap.IsSet(b) {
			b, ok = r.amap.NextFree(b)
		}
	}
	if !ok && g.timeBased {
		g.resetFile(r)
		b, ok = g.randOffset(r, d)
	}
	// offset and fillFile: in the region and the file, then shortened at
	// the first block the random map already has.
	n = g.MinBS[d]
	rel := b * g.ba[d]
	off = rel + r.Base
	if ok && rel < r.Size && off < r.End && n != 0 && off+n <= r.End {
		if r.amap != nil && !r.amap.SetOne((off-r.Base)/n) {
			n = 0
		}
		if n != 0 {
			r.lastStart[d] = off
			r.lastPos[d] = off + n
			g.issues[d]++
			g.zoneBytes += n
			return d, 0, off, n, true
		}
	}
	g.svcFile = -1
	r.Done = true
	g.NrDone++
	return d, 0, 0, 0, false
}

// fillFile is fio's fill_io_u for one file: offset, then length, then
// the random map, which shortens the I/O at the first block already
// covered.
func (g *Offsets) fillFile(r *Region, d jobfile.Dir) (off, n uint64, ok bool) {
	off, random, ok := g.offset(r, d)
	if !ok {
		return 0, 0, false
	}
	if g.randTrimWrite && d == jobfile.DirWrite {
		n = r.lastPos[jobfile.DirTrim] - r.lastStart[jobfile.DirTrim]
	} else {
		n = g.buflen(r, d, off)
	}
	if n == 0 {
		return 0, 0, false
	}
	if off+n > r.End {
		return 0, 0, false
	}
	if g.zbd != nil {
		return g.fillZoned(r, d, off, n, random)
	}
	if g.random && random && r.amap != nil {
		if n = g.mark(r, d, off, n); n == 0 {
			return 0, 0, false
		}
	}
	return off, n, true
}

// mark is fio's mark_random_map: the blocks of n bytes at off are marked
// in the random map, and the I/O is shortened at the first one already
// marked.
func (g *Offsets) mark(r *Region, d jobfile.Dir, off, n uint64) uint64 {
	mbs := g.MinBS[d]
	blk := (off - r.Base) / mbs
	nr := r.amap.SetRun(blk, (n+mbs-1)/mbs)
	if nr*mbs < n {
		n = nr * mbs
	}
	return n
}

// fillZoned is the rest of fillFile for a zonemode=zbd job, as fio's
// fill_io_u: the zones move the I/O (zbd_adjust_block), which must still
// end within the file; the random map marks the blocks at the offset
// drawn, with the length the zones left; the write pointer moves with
// what is issued (zbd_queue_io).
func (g *Offsets) fillZoned(r *Region, d jobfile.Dir, off, n uint64, random bool) (uint64, uint64, bool) {
	drawn := off
	off, n, ok := g.zbd.Adjust(r.idx, r.Base, d, off, n)
	if !ok {
		return 0, 0, false
	}
	if off+n > r.End {
		n = 0
	} else if g.random && random && r.amap != nil {
		n = g.mark(r, d, drawn, n)
	}
	g.zbd.Commit(r.idx, d, off, n)
	return off, n, n != 0
}

// offset is fio's get_next_offset: a random block (or, between the
// random ones of rw=randread:N, the next sequential offset), or the next
// sequential offset. random is false for offsets the random map does not
// record.
func (g *Offsets) offset(r *Region, d jobfile.Dir) (off uint64, random, ok bool) {
	rwSeqHit := false
	g.seqNrLeft--
	if g.seqNrLeft == 0 {
		rwSeqHit = true
		g.seqNrLeft = g.seqNr
	}
	var rel uint64
	switch {
	case g.randTrimWrite && d == jobfile.DirWrite:
		// The block the last trim went to, outside the random map
		// (fio's IO_U_F_BUSY_OK). fio takes the trim's absolute offset
		// and adds the region's base once more below: with offset= a
		// randtrimwrite job writes elsewhere, as fio 3.33 does.
		rel = r.lastStart[jobfile.DirTrim]
	case rwSeqHit && g.random && g.doRandom(d):
		b, ok := g.randBlock(r, d)
		if !ok {
			return 0, false, false
		}
		rel, random = b*g.ba[d], true
	case rwSeqHit && !g.random:
		if rel, ok = g.seqOffset(r, d); !ok {
			return 0, false, false
		}
	case !rwSeqHit && g.identical:
		// rw_sequencer=identical: the last offset again (the file's
		// first when there is none), outside the random map.
		if r.lastStart[d] != ^uint64(0) {
			rel = r.lastStart[d] - r.Base
		}
	default:
		// percentage_random's sequential share goes on as this does.
		// rw=randread:N between random offsets: sequential, not in the
		// map (fio's IO_U_F_BUSY_OK).
		if rel, ok = g.seqOffset(r, d); !ok {
			b, ok := g.randBlock(r, d)
			if !ok {
				return 0, false, false
			}
			rel = b * g.ba[d]
		}
	}
	if rel >= r.Size {
		return 0, false, false
	}
	off = rel + r.Base
	if off >= r.End {
		return 0, false, false
	}
	if g.randTrimWrite && d == jobfile.DirTrim && r.lastStart[jobfile.DirTrim] == off {
		// A random trim drawn where the last pair went: make the
		// next I/O a write all the same, as fio's get_next_offset does.
		r.lastStart[jobfile.DirWrite]--
	}
	return off, random, true
}

// seqOffset is fio's get_next_seq_offset, relative to the region.
func (g *Offsets) seqOffset(r *Region, d jobfile.Dir) (uint64, bool) {
	if r.lastPos[d] >= r.Size+r.Base && g.timeBased && len(g.Files) == 1 {
		r.lastPos[d] = r.Base
	}
	if r.lastPos[d] >= r.End {
		return 0, false
	}
	if g.seqAdd < 0 && r.lastPos[d] == r.Base && r.Base != 0 {
		// Backwards from an offset: start at the end.
		r.lastPos[d] = min64(r.End, r.Size)
	}
	pos := r.lastPos[d] - r.Base
	if pos != 0 && g.seqAdd != 0 {
		// fio adds in unsigned arithmetic: stepping back past 0 wraps
		// to a huge value, which the end check catches.
		p := int64(pos) + g.seqAdd
		switch {
		case p >= 0 && uint64(p) < r.End:
			pos = uint64(p)
		case g.seqAdd > 0:
			pos = r.Base
		default:
			pos = uint64(int64(min64(r.End, r.Size)) + g.seqAdd)
		}
	}
	return pos, true
}

// randBlock is fio's get_next_rand_block: a block drawn uniformly (or by
// random_distribution) and, with the random map, moved to the next free
// block; a time_based job starts the file over when the map is full.
func (g *Offsets) randBlock(r *Region, d jobfile.Dir) (uint64, bool) {
	if b, ok := g.randOffset(r, d); ok {
		return b, true
	}
	if g.timeBased || g.svc >= svcZipf {
		// fio's get_next_rand_block: a time_based job, or one whose
		// file service is non-uniform, starts the file over.
		g.resetFile(r)
		return g.randOffset(r, d)
	}
	return 0, false
}

func (g *Offsets) randOffset(r *Region, d jobfile.Dir) (b uint64, ok bool) {
	if g.spr != nil && d == jobfile.DirWrite {
		// fio's __get_next_rand_offset_sprandom, on the file's LFSR.
		if !g.sprDone {
			b, ok = g.spr.Next(&r.lfsr)
			g.sprDone = !ok
		}
		return b, ok
	}
	if r.hasDist {
		return r.dist.Next(), true
	}
	last := g.lastBlock(r, d)
	if last == 0 {
		return 0, false
	}
	var first uint64
	if z := g.zoned[d]; z != nil {
		if first, last, ok = g.zonedRange(z, last, d); !ok {
			return 0, false
		}
	}
	if r.hasLfsr {
		// fio's lfsr_next: the LFSR spans the whole file whatever the
		// zone; a spent LFSR ends the file's loop.
		v, ok := r.lfsr.Next()
		return first + v, ok
	}
	b = first + uint64(float64(last)*g.rOff.Frac())
	if r.amap == nil || !r.amap.IsSet(b) {
		return b, true
	}
	return r.amap.NextFree(b)
}

// lastBlock is fio's last_block: how many blockalign units a random
// offset is drawn from.
func (g *Offsets) lastBlock(r *Region, d jobfile.Dir) uint64 {
	max := min64(r.Size, r.End)
	if g.strided {
		max = g.zoneRange
	}
	if g.MinBS[d] > g.ba[d] {
		max -= g.MinBS[d] - g.ba[d]
	}
	return max / g.ba[d]
}

// fits is fio's io_u_fits.
func (g *Offsets) fits(r *Region, off, n uint64) bool {
	return off+n <= r.Size+r.Base
}

// buflen is fio's get_next_buflen: bs, or a bsrange draw (the minimum
// plus a uniform share of the maximum, rounded down to the minimum), or a
// bssplit draw, redrawn until the I/O fits the region.
func (g *Offsets) buflen(r *Region, d jobfile.Dir, off uint64) uint64 {
	lo, hi := g.MinBS[d], g.MaxBS[d]
	if lo == hi {
		return lo
	}
	if !g.fits(r, off, lo) {
		return 0
	}
	rs := &g.rBS[d]
	fmax := rs.Max()
	for {
		v := rs.Next()
		var n uint64
		if sp := g.split[d]; len(sp) == 0 {
			n = lo + uint64(float64(hi)*(float64(v)/(float64(fmax)+1)))
		} else {
			var perc uint64
			for _, e := range sp {
				if e.Pct == 0 {
					continue
				}
				n = e.BS
				perc += uint64(e.Pct)
				if v/perc <= fmax/100 && g.fits(r, off, n) {
					break
				}
			}
		}
		switch {
		case g.unaligned:
		case lo&(lo-1) == 0:
			n &^= lo - 1
		default:
			n -= n % lo
		}
		if n > hi {
			n = hi
		}
		if g.fits(r, off, n) {
			return n
		}
	}
}
