package fiorand

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/gofio/gofio/jobfile"
)

// Frand is fio's random generator (lib/rand.c): L'Ecuyer's combined
// Tausworthe generator, taus88 (32 bits) or taus258 (64 bits,
// random_generator=tausworthe64). gofio draws offsets, block sizes,
// directions and file sizes from it with fio's seeds, so that the same
// job issues the same I/O sequence as fio 3.33 and ends with the same
// counts.
type Frand struct {
	use64 bool
	s     [5]uint64
}

// fioSeedAt is fio's __seed: the Tausworthe components need a floor.
func fioSeedAt(x, m uint64) uint64 {
	if x < m {
		return x + m
	}
	return x
}

// NewFrand seeds a generator as fio's init_rand_seed does, including the
// six warm-up draws.
func NewFrand(seed uint64, use64 bool) Frand {
	r := Frand{use64: use64}
	// fio writes (2^31) + (2^17) + (2^7), which in C is XOR: 29+19+5.
	const start = 53
	if !use64 {
		s := uint32(seed)
		s1 := uint32(fioSeedAt(uint64(uint32(start*69069)^s), 1))
		s2 := uint32(fioSeedAt(uint64(s1*69069^s), 7))
		s3 := uint32(fioSeedAt(uint64(s2*69069^s), 15))
		r.s[0], r.s[1], r.s[2] = uint64(s1), uint64(s2), uint64(s3)
	} else {
		const lcg = 6906969069
		r.s[0] = fioSeedAt(start*lcg^seed, 1)
		r.s[1] = fioSeedAt(r.s[0]*lcg^seed, 7)
		r.s[2] = fioSeedAt(r.s[1]*lcg^seed, 15)
		r.s[3] = fioSeedAt(r.s[2]*lcg^seed, 33)
		r.s[4] = fioSeedAt(r.s[3]*lcg^seed, 49)
	}
	for i := 0; i < 6; i++ {
		r.Next()
	}
	return r
}

// Next returns the next value: 32 bits (taus88) or 64 bits (taus258).
func (r *Frand) Next() uint64 {
	if !r.use64 {
		s1, s2, s3 := uint32(r.s[0]), uint32(r.s[1]), uint32(r.s[2])
		s1 = ((s1 & 4294967294) << 12) ^ (((s1 << 13) ^ s1) >> 19)
		s2 = ((s2 & 4294967288) << 4) ^ (((s2 << 2) ^ s2) >> 25)
		s3 = ((s3 & 4294967280) << 17) ^ (((s3 << 3) ^ s3) >> 11)
		r.s[0], r.s[1], r.s[2] = uint64(s1), uint64(s2), uint64(s3)
		return uint64(s1 ^ s2 ^ s3)
	}
	s := &r.s
	x := ((s[0] << 1) ^ s[0]) >> 53
	s[0] = ((s[0] & 18446744073709551614) << 10) ^ x
	x = ((s[1] << 24) ^ s[1]) >> 50
	s[1] = ((s[1] & 18446744073709551104) << 5) ^ x
	x = ((s[2] << 3) ^ s[2]) >> 23
	s[2] = ((s[2] & 18446744073709547520) << 29) ^ x
	x = ((s[3] << 5) ^ s[3]) >> 24
	s[3] = ((s[3] & 18446744073709420544) << 23) ^ x
	x = ((s[4] << 3) ^ s[4]) >> 33
	s[4] = ((s[4] & 18446744073701163008) << 8) ^ x
	return s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
}

// Max is the largest value next returns (fio's rand_max).
func (r *Frand) Max() uint64 {
	if r.use64 {
		return 1<<64 - 1
	}
	return 1<<32 - 1
}

// Frac returns next / (max + 1), in [0, 1), as fio scales its draws.
func (r *Frand) Frac() float64 {
	v := r.Next()
	if r.use64 {
		return float64(v) / (1 << 64)
	}
	return float64(v) / (1 << 32)
}

// Between returns a value in [lo, hi], both inclusive, as fio's
// rand_between.
func (r *Frand) Between(lo, hi uint64) uint64 {
	end := hi - lo + 1
	if r.use64 {
		return lo + uint64(float64(end)*(float64(r.Next())/(1<<64)))
	}
	return lo + uint64(int32(float64(uint32(end))*(float64(uint32(r.Next()))/(1<<32))))
}

// The indexes of fio's per-job seeds (fio.h's FIO_RAND_*_OFF).
const (
	SeedBS = iota
	SeedBS1
	SeedBS2
	SeedVer
	SeedMix
	SeedFile
	SeedBlock
	SeedFileSize
	SeedTrim
	SeedBuf
	SeedSeqRandRead
	SeedSeqRandWrite
	SeedSeqRandTrim
	SeedStartDelay
	SeedDedupe
	SeedPoisson
	SeedZone
	SeedPoisson2
	SeedPoisson3
	SeedPrioCmds
	SeedDedupeWorkingSet
	SeedFDP      // fio 3.34's FIO_RAND_FDP_OFF
	SeedSPRandom // fio 3.41's FIO_RAND_SPRANDOM_OFF
	nrSeeds
)

// fioRandSeed is fio's FIO_RANDSEED, the random-offset seed of a
// repeatable job (times its thread number).
const fioRandSeed = 0xb1899bed

// Seeds are one job's seeds and how they are used, as fio's
// setup_random_seeds and td_fill_rand_seeds set them up.
type Seeds struct {
	Seed [nrSeeds]uint64
	// Repeatable is fio's rand_repeatable after fixup_options:
	// randrepeat=1 and no randseed=. Such a job reseeds every generator
	// at the start of every loop.
	Repeatable bool
	thread     uint64
	Use64      bool
}

// NewSeeds returns the seeds of job j, which is fio's thread number
// thread (1 for the first job, counting clones). Without randrepeat and
// randseed the seeds are random, as fio reads them from the OS. fio seeds
// before it turns randrepeat off for randseed=, so with randrepeat=1 (the
// default) the offset seed is FIO_RANDSEED times the thread number even
// when randseed= is set; fio 3.35 and later, and so a sprandom job, keep
// the chain's seed instead. The chain's first seeds are fio 3.33's, and
// it goes on to fio 3.42's later ones (SeedFDP, SeedSPRandom).
func NewSeeds(j *jobfile.Job, thread int) Seeds {
	fs := Seeds{
		Repeatable: j.RandRepeat && !j.RandSeedSet,
		thread:     uint64(thread),
		Use64:      j.RandomGenerator == "tausworthe64",
	}
	if !j.RandRepeat && !j.RandSeedSet {
		var b [8 * nrSeeds]byte
		if _, err := rand.Read(b[:]); err == nil {
			for i := range fs.Seed {
				fs.Seed[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
			fs.allRandRepeat(j)
			return fs
		}
	}
	seed := j.RandSeed
	for i := 0; i < 4; i++ {
		seed *= 0x9e370001
	}
	for i := range fs.Seed {
		fs.Seed[i] = seed*fs.thread + uint64(i)
		seed *= 0x9e370001
	}
	fs.allRandRepeat(j)
	if j.RandRepeat && !j.SPRandom.On {
		// fio 3.35 dropped this: a sprandom job (fio 3.41's) keeps
		// the chain's seed, as fio 3.42 does for every job.
		fs.Seed[SeedBlock] = fioRandSeed * fs.thread
	}
	return fs
}

// allRandRepeat fixes every seed with allrandrepeat=1, as fio's
// td_fill_rand_seeds: FIO_RANDSEED times the thread number plus the
// seed's index, whatever randrepeat and randseed say.
func (fs *Seeds) allRandRepeat(j *jobfile.Job) {
	if !j.AllRandRepeat {
		return
	}
	for i := range fs.Seed {
		fs.Seed[i] = fioRandSeed*fs.thread + uint64(i)
	}
}

// OffsetSeed is the seed of the random-offset generator.
func (fs *Seeds) OffsetSeed() uint64 { return fs.Seed[SeedBlock] }

// bsSeeds are the seeds of the block-size generators per direction:
// with verify, writes use the read seed, and with trimWrite (trimwrite,
// randtrimwrite) trims use the write seed, so that each write is as long
// as the trim before it, as fio does.
func (fs *Seeds) BSSeed(d jobfile.Dir, verify, trimWrite bool) uint64 {
	switch {
	case d == jobfile.DirRead:
		return fs.Seed[SeedBS]
	case d == jobfile.DirTrim && trimWrite:
		return fs.BSSeed(jobfile.DirWrite, verify, false)
	case d == jobfile.DirWrite && verify:
		return fs.Seed[SeedBS]
	case d == jobfile.DirWrite:
		return fs.Seed[SeedBS1]
	}
	return fs.Seed[SeedBS2]
}
