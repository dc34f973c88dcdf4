package iogen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
)

// offsets returns the offsets of the first n I/Os of job j (thread 1),
// starting a new loop over the files whenever one is done, as the event
// loop does.
func offsets(t *testing.T, j *jobfile.Job, seed uint64, n int) []uint64 {
	t.Helper()
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, seed, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, n)
	for i := range out {
		_, _, off, _, ok := g.Fill()
		if !ok {
			g.NewPass()
			_, _, off, _, ok = g.Fill()
		}
		if !ok {
			t.Fatalf("I/O %d: no offset after a new loop", i)
		}
		out[i] = off
	}
	return out
}

func TestRandomMapCoversOncePerLoop(t *testing.T) {
	j := testJob(t.TempDir(), "map", jobfile.RWRandRead, "null")
	j.Size = 1000 * 4096
	a := offsets(t, j, iogen.JobSeed(j, 0, 0), 3000)
	for loop := 0; loop < 3; loop++ {
		seen := map[uint64]bool{}
		for _, off := range a[loop*1000 : (loop+1)*1000] {
			if off%4096 != 0 || off >= j.Size || seen[off] {
				t.Fatalf("loop %d: offset %d repeated, misaligned or out of range", loop, off)
			}
			seen[off] = true
		}
	}
	// With randrepeat, fio reseeds at every loop: every loop repeats the
	// first one's order.
	if !equal(a[:1000], a[1000:2000]) {
		t.Error("second loop of a repeatable job does not repeat the first")
	}
	// Same seed, same sequence; another randseed, another one.
	if !equal(a, offsets(t, j, iogen.JobSeed(j, 0, 0), 3000)) {
		t.Error("same seed gave a different sequence")
	}
	// randrepeat=0 randseed=1234: another sequence.
	j2 := *j
	j2.RandSeed, j2.RandRepeat, j2.RandSeedSet = 1234, false, true
	b := offsets(t, &j2, iogen.JobSeed(&j2, 0, 0), 3000)
	if equal(a, b) {
		t.Error("randseed=1234 randrepeat=0 gave the default sequence")
	}
	// randseed= with randrepeat's default: fio seeds its offsets before
	// it turns randrepeat off, so the first loop is the default one, but
	// the per-loop reseed is off.
	j4 := *j
	j4.RandSeed, j4.RandSeedSet = 1234, true
	c := offsets(t, &j4, iogen.JobSeed(&j4, 0, 0), 3000)
	if !equal(a[:1000], c[:1000]) || equal(c[:1000], c[1000:2000]) {
		t.Error("randseed=1234: want fio's default first loop and a different second one")
	}
	// randrepeat=0: a new sequence every run.
	j3 := *j
	j3.RandRepeat = false
	if equal(offsets(t, &j3, 1, 100), offsets(t, &j3, 1, 100)) {
		t.Error("randrepeat=0 gave the same sequence twice")
	}
}

// TestFrandIsFiosTausworthe pins fio's taus88 and its seeding: the first
// offsets fio 3.33 issues for --rw=randread --bs=4k --size=16m (its
// write_lat_log with log_offset=1).
func TestFrandIsFiosTausworthe(t *testing.T) {
	j := testJob(t.TempDir(), "fio", jobfile.RWRandRead, "null")
	j.Size = 16 << 20
	got := offsets(t, j, 0, len(fioRandreadOffsets))
	if !equal(got, fioRandreadOffsets) {
		t.Errorf("offsets = %v, fio's = %v", got, fioRandreadOffsets)
	}
}

func TestNoRandomMapAndDistributions(t *testing.T) {
	tests := []struct {
		name string
		dist jobfile.Distribution
		norm bool
		// hot is the least share of I/Os the 10% most used blocks get.
		hot float64
	}{
		// norandommap: uniform draws, blocks repeat within a pass.
		{"norandommap", jobfile.Distribution{Kind: "random"}, true, 0.1},
		// zipf:1.2 concentrates I/O on few blocks.
		{"zipf", jobfile.Distribution{Kind: "zipf", Param: 1.2}, false, 0.6},
		// pareto:0.9 as well.
		{"pareto", jobfile.Distribution{Kind: "pareto", Param: 0.9}, false, 0.5},
		// normal:10 keeps most I/O within a few sigma of the middle.
		{"normal", jobfile.Distribution{Kind: "normal", Param: 5}, false, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob(t.TempDir(), "d", jobfile.RWRandRead, "null")
			j.Size = 1000 * 4096
			j.NoRandomMap = tt.norm
			j.RandomDistribution = tt.dist
			offs := offsets(t, j, 42, 20000)
			count := map[uint64]int{}
			for _, o := range offs {
				if o >= j.Size || o%4096 != 0 {
					t.Fatalf("offset %d out of range or misaligned", o)
				}
				count[o]++
			}
			// Share of the 100 most used blocks.
			var top []int
			for _, c := range count {
				top = append(top, c)
			}
			sortDesc(top)
			sum := 0
			for i := 0; i < 100 && i < len(top); i++ {
				sum += top[i]
			}
			share := float64(sum) / float64(len(offs))
			if share < tt.hot {
				t.Errorf("top 10%% of blocks got %.2f of I/O, want at least %.2f", share, tt.hot)
			}
			if tt.name == "norandommap" && len(count) == 1000 && equal(offs[:1000], offs[1000:2000]) {
				t.Error("norandommap repeated a permutation")
			}
		})
	}
}

func TestBlockSizes(t *testing.T) {
	tests := []struct {
		name string
		set  func(j *jobfile.Job)
		ok   func(n uint64) bool
		all  []uint64 // sizes that must all appear
	}{
		// bsrange draws multiples of the minimum inside the range.
		{"bsrange", func(j *jobfile.Job) {
			j.BSRangeMin[0], j.BSRangeMax[0] = 4096, 16384
		}, func(n uint64) bool { return n >= 4096 && n <= 16384 && n%4096 == 0 }, []uint64{4096, 8192, 12288, 16384}},
		// bssplit picks by weight.
		{"bssplit", func(j *jobfile.Job) {
			j.BSSplit[0] = []jobfile.BSSplitEntry{{BS: 4096, Pct: 50}, {BS: 65536, Pct: 50}}
		}, func(n uint64) bool { return n == 4096 || n == 65536 }, []uint64{4096, 65536}},
		// bs_unaligned keeps odd sizes.
		{"unaligned", func(j *jobfile.Job) {
			j.BSRangeMin[0], j.BSRangeMax[0], j.BSUnaligned = 512, 1024, true
		}, func(n uint64) bool { return n >= 512 && n <= 1024 }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob(t.TempDir(), "bs", jobfile.RWRead, "null")
			tt.set(j)
			j.Size = 1 << 30
			g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[uint64]bool{}
			for i := 0; i < 2000; i++ {
				_, _, _, n, ok := g.Fill()
				if !ok || !tt.ok(n) {
					t.Fatalf("block size %d (ok %v) not allowed", n, ok)
				}
				seen[n] = true
			}
			for _, n := range tt.all {
				if !seen[n] {
					t.Errorf("size %d never drawn", n)
				}
			}
		})
	}
}

func TestSeqSuffix(t *testing.T) {
	// rw=write:4k leaves a 4k hole after every block.
	j := testJob(t.TempDir(), "hole", jobfile.RWWrite, "null")
	j.RWSeqAdd = 4096
	j.Size = 64 << 10
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 8; i++ {
		if _, _, off, _, _ := g.Fill(); off != i*8192 {
			t.Fatalf("write %d at %d, want %d", i, off, i*8192)
		}
	}
	// rw=randread:4 picks a new random offset every 4 I/Os.
	j = testJob(t.TempDir(), "seqnr", jobfile.RWRandRead, "null")
	j.RWSeqNr = 4
	j.Size = 1 << 20
	offs := offsets(t, j, 3, 16)
	for i := 0; i < 16; i++ {
		if i%4 != 0 && offs[i] != offs[i-1]+4096 {
			t.Fatalf("I/O %d at %d does not follow %d", i, offs[i], offs[i-1])
		}
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortDesc(a []int) {
	for i := 1; i < len(a); i++ {
		for k := i; k > 0 && a[k] > a[k-1]; k-- {
			a[k], a[k-1] = a[k-1], a[k]
		}
	}
}

// TestBackwardsStride checks rw=read:-8k against the offsets fio 3.33's
// write_iolog records for examples/backwards-read.fio: the first I/O at 0,
// then from the end of the file 8k back per I/O, wrapping to the end.
func TestBackwardsStride(t *testing.T) {
	j := testJob(t.TempDir(), "back", jobfile.RWRead, "null")
	j.Size, j.RWSeqAdd = 64<<10, -8<<10
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	const k = 1024
	want := []uint64{0, 56 * k, 52 * k, 48 * k, 44 * k, 40 * k, 36 * k, 32 * k, 28 * k, 24 * k, 20 * k, 16 * k, 12 * k, 8 * k, 4 * k, 0, 56 * k}
	for i, w := range want {
		if _, _, off, _, _ := g.Fill(); off != w {
			t.Fatalf("I/O %d at %d, want %d", i, off, w)
		}
	}
}

// fioRandreadOffsets are the first offsets of fio 3.33's
// --name=j --ioengine=null --rw=randread --bs=4k --size=16m.
var fioRandreadOffsets = []uint64{1011712, 12419072, 14143488, 7884800, 6742016, 14094336, 6381568, 5931008, 15314944, 1118208, 14348288, 10924032}

// TestDistributionsAreFios pins random_distribution to fio 3.33: the first
// offsets fio issues for --name=j --directory=/dev/shm/eq20t --rw=randread
// --bs=4k --size=16m with each distribution (the file's path seeds it; no
// file is touched here).
func TestDistributionsAreFios(t *testing.T) {
	for _, tt := range []struct {
		dist jobfile.Distribution
		want []uint64
	}{
		{jobfile.Distribution{Kind: "normal", Param: 20}, []uint64{11546624, 4521984, 1142784}},
		{jobfile.Distribution{Kind: "zipf", Param: 1.2}, []uint64{16052224, 12247040, 974848}},
		{jobfile.Distribution{Kind: "pareto", Param: 0.9}, []uint64{6176768, 16416768, 9920512}},
	} {
		j := testJob(t.TempDir(), "j", jobfile.RWRandRead, "psync")
		j.Size = 16 << 20
		j.RandomDistribution = tt.dist
		g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size, Name: "/dev/shm/eq20t/j.0.0"}}, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tt.want {
			if _, _, off, _, _ := g.Fill(); off != w {
				t.Errorf("%s: I/O %d at %d, fio's at %d", tt.dist.Kind, i, off, w)
			}
		}
	}
}

// TestZonedIsFios pins random_distribution=zoned and zoned_abs to fio 3.33:
// the first offsets fio issues for --name=j --rw=randread --bs=4k
// --size=16m --number_ios=6 with each (zoned draws no file-name seed).
func TestZonedIsFios(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		zones []jobfile.ZoneSplit
		want  []uint64
	}{
		{"zoned", []jobfile.ZoneSplit{{Access: 50, SizePct: 10}, {Access: 30, SizePct: 20}, {Access: 20, SizePct: 70}},
			[]uint64{98304, 1236992, 1409024, 10547200, 9748480, 1404928}},
		{"zoned_abs", []jobfile.ZoneSplit{{Access: 60, Size: 1 << 20}, {Access: 40, Size: 8 << 20}},
			[]uint64{61440, 774144, 880640, 4988928, 4419584, 880640}},
	} {
		j := testJob(t.TempDir(), "j", jobfile.RWRandRead, "psync")
		j.Size = 16 << 20
		j.NoRandomMap = true
		j.RandSeed = 0x89 // fio's default randseed, which seeds zone_state
		j.RandomDistribution = jobfile.Distribution{Kind: tt.kind}
		for d := range j.RandomDistribution.Zones {
			j.RandomDistribution.Zones[d] = tt.zones
		}
		g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size, Name: "j.dat"}}, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tt.want {
			if _, _, off, _, _ := g.Fill(); off != w {
				t.Errorf("%s: I/O %d at %d, fio's at %d", tt.kind, i, off, w)
			}
		}
	}
}

// TestZonedAbsPastEnd checks that a zoned_abs range past the file ends
// the file's loop at the first draw that lands in it, as fio does, and
// counts it.
func TestZonedAbsPastEnd(t *testing.T) {
	j := testJob(t.TempDir(), "j", jobfile.RWRandRead, "psync")
	j.Size = 1 << 20
	j.NoRandomMap = true
	j.RandSeed = 0x89
	j.RandomDistribution = jobfile.Distribution{Kind: "zoned_abs"}
	for d := range j.RandomDistribution.Zones {
		j.RandomDistribution.Zones[d] = []jobfile.ZoneSplit{{Access: 50, Size: 64 << 10}, {Access: 50, Size: 2 << 20}}
	}
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size, Name: "z.dat"}}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; n < 1000; n++ {
		if _, _, off, _, ok := g.Fill(); !ok {
			break
		} else if off >= 64<<10 {
			t.Fatalf("I/O %d at %d, past the first range", n, off)
		}
	}
	// fio 3.33 makes 3 I/Os for --rw=randread --bs=4k --size=1m
	// --random_distribution=zoned_abs:50/64k:50/2m.
	if n != 3 || g.AbsOverflows != 1 {
		t.Errorf("%d I/Os and %d overflows, want fio's 3 and 1", n, g.AbsOverflows)
	}
}

// fioLfsrOffsets are the first offsets fio 3.33 issues for --rw=randread
// --bs=4k --size=1m --random_generator=lfsr (its write_lat_log with
// log_offset=1).
var fioLfsrOffsets = []uint64{962560, 839680, 667648, 802816, 466944, 167936, 630784, 380928, 552960, 1015808, 442368, 155648}

// TestLfsrOffsets checks random_generator=lfsr: fio's first offsets, and
// with or without norandommap every block exactly once per loop, also
// for a block count that is not a power of two.
func TestLfsrOffsets(t *testing.T) {
	j := testJob(t.TempDir(), "lfsr", jobfile.RWRandRead, "null")
	j.RandomGenerator = "lfsr"
	j.Size = 1 << 20
	if got := offsets(t, j, 0, len(fioLfsrOffsets)); !equal(got, fioLfsrOffsets) {
		t.Errorf("offsets = %v, fio's = %v", got, fioLfsrOffsets)
	}
	for _, norandommap := range []bool{false, true} {
		for _, blocks := range []uint64{256, 1004, 1} {
			j.NoRandomMap = norandommap
			j.Size = blocks * 4096
			offs := offsets(t, j, 0, int(3*blocks))
			for loop := 0; loop < 3; loop++ {
				seen := map[uint64]bool{}
				for _, off := range offs[uint64(loop)*blocks : uint64(loop+1)*blocks] {
					if off%4096 != 0 || off >= j.Size || seen[off] {
						t.Fatalf("norandommap=%v blocks %d loop %d: offset %d repeated, misaligned or out of range", norandommap, blocks, loop, off)
					}
					seen[off] = true
				}
			}
		}
	}
}

// TestLfsrAllOnesSeedRefused checks that a job whose offset seed is its
// LFSR's all-ones state fails by name, as fio's "failed initializing
// LFSR": one block needs a 3-bit LFSR, and FIO_RANDSEED*3 ends in 0b111.
func TestLfsrAllOnesSeedRefused(t *testing.T) {
	j := testJob(t.TempDir(), "lfsr", jobfile.RWRandRead, "null")
	j.RandomGenerator = "lfsr"
	j.Size = 4096
	if _, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 0, 1); err != nil {
		t.Fatalf("thread 1: %v", err)
	}
	_, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 0, 3)
	if err == nil || !strings.Contains(err.Error(), "failed initializing LFSR") || !strings.Contains(err.Error(), "random_generator=lfsr") {
		t.Fatalf("thread 3: err %v, want fio's failed initializing LFSR naming random_generator=lfsr", err)
	}
}

// testJob is a job of name on the file dir/name.dat with the fields the
// parser would give it, engine and direction as given.
func testJob(dir, name string, rw jobfile.RW, engine string) *jobfile.Job {
	return &jobfile.Job{
		Name:                    name,
		Filenames:               []string{filepath.Join(dir, name+".dat")},
		NrFiles:                 1,
		Size:                    64 << 10,
		IOEngine:                engine,
		IODepth:                 1,
		IODepthBatchSubmit:      1,
		IODepthBatchCompleteMin: 1,
		IODepthBatchCompleteMax: 1,
		IODepthLow:              1,
		RW:                      rw,
		RWMixRead:               50,
		BS:                      [jobfile.NumDirs]uint64{4096, 4096, 4096},
		RandRepeat:              true,
		Loops:                   1,
		KBBase:                  1024,
		BWAvgTime:               500,
		IOPSAvgTime:             500,
		TWPriority:              true,
		SQThreadPollCPU:         -1,
		NonVectored:             -1,
		Stats:                   true,
		ClatPercentiles:         true,
	}
}

// TestSPRandomFio checks sprandom's writes against fio 3.42's: a 1 MiB
// file in 4 KiB blocks, 10 regions, the default seeds (fio 3.42's, which
// keep the chain's offset seed): the first blocks fio's --debug=sprandom
// printed, 286 writes in all, and nothing after the job's end, even after
// a new loop.
func TestSPRandomFio(t *testing.T) {
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: []string{"--name=j", "--rw=randwrite", "--size=1m", "--sprandom=1", "--spr_num_regions=10"}})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []uint64
	for {
		_, _, off, _, ok := g.Fill()
		if !ok {
			break
		}
		blocks = append(blocks, off/4096)
	}
	if want := []uint64{228, 98, 33, 152, 92, 62, 15, 224}; len(blocks) != 286 || !equal(blocks[:8], want) {
		t.Errorf("%d writes starting %v; fio 3.42: 286 starting %v", len(blocks), blocks[:min(8, len(blocks))], want)
	}
	if g.NewPass(); func() bool { _, _, _, _, ok := g.Fill(); return ok }() {
		t.Error("a new loop wrote again; fio's sprandom ends the job")
	}
}
