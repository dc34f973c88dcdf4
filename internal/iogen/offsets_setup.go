package iogen

import (
	"fmt"
	"sort"

	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/sprandom"
	"github.com/gofio/gofio/internal/zbd"
	"github.com/gofio/gofio/jobfile"
)

// JobSeed returns a 64-bit seed for gofio's own generators (buffer
// contents, random_distribution): fixed with randrepeat (randseed, or
// fio's 0x89) and distinct per job, or from the clock otherwise.
func JobSeed(j *jobfile.Job, index int, fallback uint64) uint64 {
	s := j.RandSeed
	if !j.RandRepeat && !j.RandSeedSet && !j.AllRandRepeat {
		return fallback ^ uint64(index)*0x9e3779b97f4a7c15
	}
	x := s
	x ^= uint64(index+1) * 0x9e370001
	return fiorand.Splitmix(&x)
}

// NewOffsets returns the generator of job j, fio's thread number
// thread, over its regions.
func NewOffsets(j *jobfile.Job, regions []Region, seed uint64, thread int) (*Offsets, error) {
	g := &Offsets{
		RW:        j.RW,
		random:    j.RW.IsRandom(),
		trimWrite: j.RW.HasTrim() && j.RW.HasWrite(),
		randomMap: !j.NoRandomMap,
		timeBased: j.TimeBased,
		unaligned: j.BSUnaligned,
		Files:     regions,
		seeds:     fiorand.NewSeeds(j, thread),
		verify:    j.Verify != "" && j.Verify != "0",
	}
	g.randTrimWrite = g.trimWrite && g.random
	for d := range g.seqPct {
		g.seqPct[d] = uint64(j.SeqPercent[d])
	}
	g.identical = j.RWIdentical
	g.svc, g.svcNr = newFileService(j.FileService)
	g.svcParam, g.svcCtr, g.svcFile = j.FileService.Param, j.FileService.Center, -1
	switch {
	case j.RW.HasRead() && j.RW.HasWrite():
		g.mixed = true
	case j.RW.HasRead():
		g.oneDir = jobfile.DirRead
	case j.RW.HasWrite():
		g.oneDir = jobfile.DirWrite
	default:
		g.oneDir = jobfile.DirTrim
	}
	g.RWMix[jobfile.DirRead] = uint64(j.RWMixRead)
	g.RWMix[jobfile.DirWrite] = 100 - uint64(j.RWMixRead)
	if g.random {
		g.seqNr = j.RWSeqNr
	} else {
		g.seqAdd = j.RWSeqAdd
	}
	if g.seqNr == 0 {
		g.seqNr = 1
	}
	g.seqNrLeft = 1
	g.setBlockSizes(j)
	if a, err := offsetAlign(j); err != nil {
		return nil, err
	} else if g.rwMinBS == ^uint64(0) {
		g.rwMinBS = a
	}
	if k := j.RandomDistribution.Kind; k != "" && k != "random" {
		g.randomMap = false
	}
	if g.ba != g.MinBS {
		// fio: "Any use of blockalign= turns off randommap".
		g.randomMap = false
	}
	if k := j.RandomDistribution.Kind; g.random && (k == "zoned" || k == "zoned_abs") {
		g.zonedAbs = k == "zoned_abs"
		for d := range g.zoned {
			g.zoned[d] = zoneIndex(j.RandomDistribution.Zones[d], g.zonedAbs)
		}
	}
	if j.Zones.Mode == "strided" {
		g.strided = true
		g.zoneSize, g.zoneRange, g.zoneSkip = j.Zones.Size, j.Zones.Range, j.Zones.Skip
	}
	if err := g.initRegions(j, thread); err != nil {
		return nil, err
	}
	if j.SPRandom.On {
		if err := g.initSPRandom(j); err != nil {
			return nil, fmt.Errorf("%s: %w", j.Name, err)
		}
	}
	g.reseed()
	g.resetFiles()
	g.simpleRand = g.isSimpleRand()
	return g, nil
}

// initRegions readies each region for its first pass: its start, and the
// state its random offsets draw from: fio's LFSR, its random map, or a
// zipf, pareto or normal distribution (fio's init_random_map and
// __init_rand_distribution).
func (g *Offsets) initRegions(j *jobfile.Job, thread int) error {
	rangeSize := min64(g.MinBS[jobfile.DirRead], g.MinBS[jobfile.DirWrite])
	for i := range g.Files {
		r := &g.Files[i]
		r.Start, r.idx = r.Base, i
		blocks := min64(r.Size, r.End) / g.rwMinBS
		if g.strided {
			blocks = g.zoneRange / g.rwMinBS // fio's random map covers one zone
		}
		if blocks == 0 {
			return fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.Size, g.rwMinBS)
		}
		switch k := j.RandomDistribution.Kind; {
		case g.random && j.RandomGenerator == "lfsr" && (k == "" || k == "random" || k == "zoned" || k == "zoned_abs"):
			// fio's init_random_map: an LFSR instead of the random map,
			// with or without norandommap (zipf, pareto and normal
			// draw from their own generators and keep neither).
			l, err := fiorand.NewLFSR(blocks, g.seeds.OffsetSeed(), 0)
			if err != nil {
				return fmt.Errorf("%s: failed initializing LFSR: %w", j.Name, err)
			}
			r.lfsr, r.hasLfsr = l, true
		case g.random && g.randomMap:
			r.amap = fiorand.NewAxmap(blocks)
		}
		if k := j.RandomDistribution.Kind; g.random && (k == "zipf" || k == "pareto" || k == "normal") {
			// fio's __init_rand_distribution.
			nranges := (min64(r.Size, r.End) + rangeSize - 1) / rangeSize
			dseed := fiorand.Jhash([]byte(r.Name), 0) * uint32(thread)
			if !g.seeds.Repeatable {
				dseed = uint32(g.seeds.Seed[fiorand.SeedBlock])
			}
			d, ok := fiorand.NewDist(k, j.RandomDistribution.Param, nranges, dseed)
			if !ok {
				return distError(j)
			}
			r.dist, r.hasDist = d, true
		}
	}
	return nil
}

// initSPRandom sets up sprandom's writes over the job's one file, as fio's
// sprandom_init: over the smaller of the file's size and its region, in
// blocks of the write bs, on the file's LFSR (jobfile sets
// random_generator=lfsr for sprandom).
func (g *Offsets) initSPRandom(j *jobfile.Job) error {
	if len(g.Files) != 1 || !g.Files[0].hasLfsr {
		return fmt.Errorf("sprandom needs one file (fio: SPRandom supports only one file) and random_generator=lfsr")
	}
	r := &g.Files[0]
	s := j.SPRandom
	gen, err := sprandom.New(sprandom.Config{OP: s.OP, Regions: uint32(s.Regions), CacheSize: s.CacheSize},
		min64(r.Size, r.End), j.BS[jobfile.DirWrite], g.seeds.Seed[fiorand.SeedSPRandom])
	g.spr = gen
	return err
}

// setBlockSizes takes the job's block sizes per direction: the bounds,
// blockalign (random jobs only) and bssplit, sorted as fio sorts it, and
// the smallest block size of any direction.
func (g *Offsets) setBlockSizes(j *jobfile.Job) {
	g.rwMinBS = ^uint64(0)
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		g.MinBS[d], g.MaxBS[d] = j.BSMin(d), j.BSMax(d)
		if g.MinBS[d] > 0 && g.MinBS[d] < g.rwMinBS {
			g.rwMinBS = g.MinBS[d]
		}
		g.ba[d] = g.MinBS[d]
		if g.random && j.BlockAlign[d] > 0 {
			g.ba[d] = j.BlockAlign[d]
		}
		if sp := j.BSSplit[d]; len(sp) > 0 {
			// fio sorts the entries by percentage (glibc's qsort keeps
			// equal ones in order).
			g.split[d] = append([]jobfile.BSSplitEntry(nil), sp...)
			sort.SliceStable(g.split[d], func(a, b int) bool { return g.split[d][a].Pct < g.split[d][b].Pct })
		}
	}
}

// isSimpleRand reports whether the job is one fillSimpleRand serves: rw=
// randread, randwrite or randtrim without :N, one block size and the
// alignment of that size, one file served round robin or sequentially
// (so that picking it draws nothing), no zones, uniform offsets from the
// tausworthe generator, every I/O random (percentage_random=100).
func (g *Offsets) isSimpleRand() bool {
	d := g.oneDir
	if !g.random || g.mixed || g.trimWrite || g.strided || g.seqNr != 1 || len(g.Files) != 1 || g.svc > svcSequential {
		return false
	}
	r := &g.Files[0]
	return g.MinBS[d] == g.MaxBS[d] && g.ba[d] == g.MinBS[d] && g.zoned[d] == nil && !r.hasDist && !r.hasLfsr && g.seqPct[d] == 0
}

func min64(a, b uint64) uint64 {
	if a < b {
		return a
	}
	return b
}

// reseed seeds fio's generators from the job's seeds (td_fill_rand_seeds).
func (g *Offsets) reseed() {
	s := &g.seeds
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		g.rBS[d] = fiorand.NewFrand(s.BSSeed(d, g.verify, g.trimWrite), s.Use64)
	}
	g.rMix = fiorand.NewFrand(s.Seed[fiorand.SeedMix], false)
	g.rZone = fiorand.NewFrand(s.Seed[fiorand.SeedZone], false)
	g.rOff = fiorand.NewFrand(s.OffsetSeed(), s.Use64)
	for d := range g.rSeq {
		g.rSeq[d] = fiorand.NewFrand(s.Seed[fiorand.SeedSeqRandRead], false)
	}
	switch g.svc {
	case svcRandom:
		g.rFile = fiorand.NewFrand(s.Seed[fiorand.SeedFile], s.Use64)
	case svcZipf, svcPareto, svcNormal:
		// fio's init_rand_file_service, with the seed's low 32 bits.
		kind := map[fileService]string{svcZipf: "zipf", svcPareto: "pareto", svcNormal: "normal"}[g.svc]
		g.fileDist, _ = fiorand.NewDist(kind, g.svcParam, uint64(len(g.Files))<<fileServiceShift, uint32(s.Seed[fiorand.SeedFile]))
		g.fileDist.ForFiles(g.svcCtr)
	}
}

// resetFiles starts every file over (fio_file_reset and the done flags).
func (g *Offsets) resetFiles() {
	for i := range g.Files {
		g.resetFile(&g.Files[i])
	}
	g.NrDone = 0
}

func (g *Offsets) resetFile(r *Region) {
	for d := range r.lastPos {
		r.lastPos[d] = r.Base
		r.lastStart[d] = ^uint64(0)
	}
	r.Done = false
	if r.amap != nil {
		r.amap.Reset()
	}
	if r.hasLfsr {
		// The seed passed fiorand.NewLFSR's all-ones check, so it passes again.
		r.lfsr.Reset(g.seeds.OffsetSeed())
	}
	if g.zbd != nil {
		g.zbd.FileReset(r.idx)
	}
}

// SetZones makes the generator place its I/O by zonemode=zbd's zones z,
// whose files are the generator's, in order; it starts them as fio's
// zbd_file_reset at each file's open.
func (g *Offsets) SetZones(z *zbd.Job) {
	g.zbd = z
	g.simpleRand = false
	for i := range g.Files {
		z.FileReset(i)
	}
}

// NewPass starts another pass over the files, as fio's clear_io_state
// between passes: files start over, the rwmix cycle restarts, and a
// repeatable job reseeds its generators.
func (g *Offsets) NewPass() {
	g.hasPending = false
	g.svcFile = -1 // fio's clear_io_state closes the files
	g.resetFiles()
	g.rwmixIssues = 0
	if g.seeds.Repeatable {
		g.reseed()
	}
}

// EndRamp clears the issue counters as fio's reset_all_stats at the end
// of ramp_time.
func (g *Offsets) EndRamp() {
	g.hasPending = false
	g.issues = [jobfile.NumDirs]uint64{}
	g.rwmixIssues = 0
}
