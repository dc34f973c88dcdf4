package iogen

import (
	"encoding/binary"

	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/jobfile"
)

// Buffers generates what a job writes, as fio 3.33's fill_io_buffer does
// (io_u.c, lib/rand.c): random bytes from the job's buffer generator
// (fio's buf_state, seeded with FIO_RAND_BUF_OFF), buffer_compress_percentage
// zeros (or buffer_pattern) in every buffer_compress_chunk, dedupe_percentage
// buffers that repeat an earlier one (dedupe_mode=repeat) or one of a
// working set (dedupe_mode=working_set), zeros with zero_buffers, or the
// buffer_pattern. With fio's seeds and fio's order of calls the bytes are
// fio's: a job that writes the same blocks in the same order writes the
// same file. Filling allocates nothing.
type Buffers struct {
	zero     bool
	pattern  []byte
	compress uint64 // percentage
	chunk    uint64 // buffer_compress_chunk, 0 for none
	dedupe   int    // percentage
	// chunked is fio's compress_percentage || dedupe_percentage: the
	// buffer is filled chunk by chunk, each from its own seed.
	chunked    bool
	workingSet bool

	// state is fio's buf_state, prev its buf_state_prev, ret its
	// buf_state_ret (the copy a dedupe buffer is generated from).
	state, prev, ret fiorand.Frand
	dedupeR          fiorand.Frand // fio's dedupe_state (32 bits)
	wsIdx            fiorand.Frand // fio's dedupe_working_set_index_state
	ws               []fiorand.Frand
	seeds            fiorand.Seeds
}

// NewBuffers returns the buffer generator of job j, fio's thread number
// thread. The dedupe working set, when the job has one, comes from
// InitWorkingSet.
func NewBuffers(j *jobfile.Job, thread int) *Buffers {
	g := &Buffers{
		zero:       j.ZeroBuffers,
		pattern:    j.BufferPattern,
		compress:   uint64(j.CompressPercentage),
		chunk:      j.CompressChunk,
		dedupe:     j.DedupePercentage,
		chunked:    j.CompressPercentage > 0 || j.DedupePercentage > 0,
		workingSet: j.DedupePercentage > 0 && j.DedupeMode == "working_set",
		seeds:      fiorand.NewSeeds(j, thread),
	}
	g.reseed()
	return g
}

// reseed seeds the generators as fio's td_fill_rand_seeds: at the start,
// and at each new loop of a repeatable job. The working set stays.
func (g *Buffers) reseed() {
	s := &g.seeds
	g.dedupeR = fiorand.NewFrand(s.Seed[fiorand.SeedDedupe], false)
	g.wsIdx = fiorand.NewFrand(s.Seed[fiorand.SeedDedupeWorkingSet], s.Use64)
	g.state = fiorand.NewFrand(s.Seed[fiorand.SeedBuf], s.Use64)
	g.prev = g.state
}

// NewPass is the reseed of fio's clear_io_state between passes.
func (g *Buffers) NewPass() {
	if g.seeds.Repeatable {
		g.reseed()
	}
}

// WorkingSetJob is what InitWorkingSet needs of one job.
type WorkingSetJob struct {
	Job  *jobfile.Job
	Gen  *Buffers
	Size uint64 // size= of the job
}

// InitWorkingSet precomputes the dedupe working set of every job with
// dedupe_mode=working_set, as fio's init_dedupe_working_set_seeds: the
// states that generate the job's first unique pages, or with dedupe_global
// pages spread over every job's generator in turn. jobs are all the run's
// jobs in fio's thread order, their generators freshly seeded.
func InitWorkingSet(jobs []WorkingSetJob) {
	n := uint64(len(jobs))
	for ti, jw := range jobs {
		j, g := jw.Job, jw.Gen
		if !g.workingSet {
			continue
		}
		minBS := j.BSMin(jobfile.DirWrite)
		if minBS == 0 {
			continue
		}
		adv := minBS / minNotZero(minBS, j.CompressChunk)
		pages := jw.Size * uint64(j.DedupeWorkingSetPercentage) / 100 / minBS
		g.ws = make([]fiorand.Frand, pages)
		if pages == 0 {
			continue
		}
		perSeed := max(pages/n, 1)
		st := g.state
		g.ws[0] = st
		tindex := uint64(ti)
		for i := uint64(1); i < pages; i++ {
			for k := uint64(0); k < adv; k++ {
				nextSeed(&st)
			}
			if j.DedupeGlobal && i%perSeed == 0 {
				tindex++
				st = jobs[tindex%n].Gen.state
			}
			g.ws[i] = st
		}
	}
}

// minNotZero is fio's min_not_zero.
func minNotZero(a, b uint64) uint64 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// nextSeed is fio's __get_next_seed on a 64-bit machine: two draws
// multiplied.
func nextSeed(r *fiorand.Frand) uint64 {
	v := r.Next()
	return v * r.Next()
}

// pickState is fio's get_buf_state: the generator the next buffer is
// drawn from.
func (g *Buffers) pickState() *fiorand.Frand {
	switch {
	case g.dedupe == 0:
		return &g.state
	case g.dedupe == 100:
		g.prev = g.state
		return &g.state
	}
	if v := g.dedupeR.Between(1, 100); v <= uint64(g.dedupe) {
		if g.workingSet {
			if len(g.ws) == 0 {
				return &g.state
			}
			g.ret = g.ws[g.wsIdx.Between(0, uint64(len(g.ws))-1)]
		} else {
			g.ret = g.prev
		}
		return &g.ret
	}
	return &g.state
}

// saveState is fio's save_buf_state after each chunk.
func (g *Buffers) saveState(rs *fiorand.Frand) {
	switch {
	case g.dedupe == 100:
		*rs = g.prev
	case rs == &g.state:
		g.prev = g.state
	}
}

// Fill fills b, a whole write buffer, as fio's fill_io_buffer(td, b,
// minWrite, len(b)); minWrite is the job's smallest write block size.
func (g *Buffers) Fill(b []byte, minWrite uint64) {
	switch {
	case g.chunked:
		var rs *fiorand.Frand
		for len(b) > 0 {
			if rs == nil {
				rs = g.pickState()
			}
			minWrite = min(minWrite, uint64(len(b)))
			n := minNotZero(minWrite, g.chunk)
			g.fillPercentage(b[:n], nextSeed(rs))
			b = b[n:]
			g.saveState(rs)
		}
	case len(g.pattern) > 0:
		fillPattern(b, g.pattern)
	case g.zero:
		clear(b)
	default:
		fillRandom(b, nextSeed(&g.state))
	}
}

// fillPercentage is fio's __fill_random_buf_percentage over one chunk b:
// the first (100 - compress)% random from seed, the rest zeros or the
// pattern.
func (g *Buffers) fillPercentage(b []byte, seed uint64) {
	n := uint64(len(b)) * (100 - g.compress) / 100
	fillRandom(b[:n], seed)
	rest := b[n:]
	if len(g.pattern) > 0 {
		fillPattern(rest, g.pattern)
	} else {
		clear(rest)
	}
}

// fillPattern repeats pattern over b from its start.
func fillPattern(b, pattern []byte) {
	for i := 0; i < len(b); i += copy(b[i:], pattern) {
	}
}

// seedBuckets is fio's CONFIG_SEED_BUCKETS (configure's default).
const seedBuckets = 4

// fillRandom is fio's __fill_random_buf: four interleaved streams of
// 64-bit words, each seeded with seed times a prime and multiplied by the
// golden ratio at every step, then the tail from the first stream.
func fillRandom(b []byte, seed uint64) {
	primes := [seedBuckets]uint64{1, 2, 3, 5}
	var s [seedBuckets]uint64
	for p := range s {
		s[p] = seed * primes[p]
	}
	words := len(b) / 8 / seedBuckets * seedBuckets
	i := 0
	for ; i < words*8; i += 8 * seedBuckets {
		for p := 0; p < seedBuckets; p++ {
			binary.LittleEndian.PutUint64(b[i+8*p:], s[p])
			s[p] = fiorand.HashU64(s[p])
		}
	}
	// __fill_random_buf_small over the rest.
	v := s[0]
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], v)
		v = fiorand.HashU64(v)
	}
	for k := 0; i < len(b); i, k = i+1, k+1 {
		b[i] = byte(v >> (8 * k))
	}
}

// Scramble is fio's small_content_scramble: in every 512 bytes of b, the
// write's offset goes into one of the first eight 64-byte lines, chosen by
// the issue time, and the issue time (seconds, nanoseconds) into the last
// 16 bytes of the first line, so that no two writes of a reused buffer
// are alike.
func Scramble(b []byte, off uint64, now int64) {
	sec, nsec := uint64(now/1e9), uint64(now%1e9)
	line := int((nsec^off)&7) << 6
	for i := 0; i+512 <= len(b); i += 512 {
		binary.LittleEndian.PutUint64(b[i+line:], off)
		binary.LittleEndian.PutUint64(b[i+48:], sec)
		binary.LittleEndian.PutUint64(b[i+56:], nsec)
		off += 512
	}
}
