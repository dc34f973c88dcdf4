package sprandom

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/fiorand"
)

// TestSetup checks the model against fio 3.42's --debug=sprandom for a
// 1 MiB file in 4 KiB blocks, 10 regions, spr_op=0.15: the physical size,
// the regions, the writes each and the buffer's room, and the validity of
// each region (fio prints it to two places).
func TestSetup(t *testing.T) {
	g, err := New(Config{OP: 0.15, Regions: 10}, 1<<20, 4096, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := PhysicalSize(0.15, 1<<20, 4096); p != 1208320 || g.RegionSize != 120832 || g.regionWrites != 29 || g.buf.capacity() != 22 {
		t.Errorf("physical %d, region %d, writes %d, capacity %d; fio: 1208320, 120832, 29, 22", p, g.RegionSize, g.regionWrites, g.buf.capacity())
	}
	var got []string
	for _, v := range validityDist(10, 0.15) {
		got = append(got, fmt.Sprintf("%.2f", v))
	}
	if want := "0.75 0.78 0.80 0.83 0.85 0.88 0.91 0.94 0.97 1.00"; strings.Join(got, " ") != want {
		t.Errorf("validity %v, fio's %s", got, want)
	}
	if g.invalidPct[0] != 2479 || g.invalidPct[9] != 0 {
		t.Errorf("invalid shares %v, want 2479 (validity 0.7521) first and 0 last", g.invalidPct)
	}
}

// TestRefusals checks sprandom_init's and sprandom_setup's refusals, with
// fio's words, and the one fio crashes on (a region smaller than a block).
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg     Config
		logical uint64
		bs      uint64
		want    string
	}{
		{Config{OP: 0.15, Regions: 10}, 1 << 20, 12288, "bs [12288] should be power of 2"},
		{Config{OP: 0.15, Regions: 0}, 1 << 20, 4096, "at least one region"},
		{Config{OP: 0.15, Regions: 100, CacheSize: 32 << 10}, 2 << 20, 4096, "spr_cs [32768] must be smaller than region_sz [24125] which means [73] regions allowed"},
		{Config{OP: 0.15, Regions: 1000}, 1 << 20, 4096, "smaller than a 4096-byte block"},
	} {
		if _, err := New(c.cfg, c.logical, c.bs, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestWritesEachBlock checks the writes over a whole file: every block of
// the LFSR once as a new write, the rewrites of a region coming before
// the next region's new writes, the regions' invalid shares reached
// within the draws' spread, and the job's end when the LFSR is spent,
// having written about the physical size. With a cache size the rewrites
// come at the end of the next region instead.
func TestWritesEachBlock(t *testing.T) {
	for _, cache := range []uint64{0, 64 << 10} {
		const blocks = 2048
		g, err := New(Config{OP: 0.15, Regions: 16, CacheSize: cache}, blocks*4096, 4096, 7)
		if err != nil {
			t.Fatal(err)
		}
		l, err := fiorand.NewLFSR(blocks, 12345, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, blocks)
		writes := 0
		for {
			b, ok := g.Next(&l)
			if !ok {
				break
			}
			seen[b]++
			writes++
		}
		rewrites := writes - blocks
		for b, n := range seen {
			if n == 0 {
				t.Fatalf("cache %d: block %d never written", cache, b)
			}
		}
		if phys := PhysicalSize(0.15, blocks*4096, 4096) / 4096; writes < blocks || uint64(writes) > phys {
			t.Errorf("cache %d: %d writes for %d blocks, want at least those and at most the physical %d", cache, writes, blocks, phys)
		}
		if rewrites < 100 {
			t.Errorf("cache %d: %d rewrites: the regions' invalid shares were not written", cache, rewrites)
		}
	}
}

// TestNoAllocs: a write's block costs no allocation.
func TestNoAllocs(t *testing.T) {
	g, _ := New(Config{OP: 0.15, Regions: 8}, 64<<20, 4096, 3)
	l, _ := fiorand.NewLFSR(64<<20/4096, 99, 0)
	if a := testing.AllocsPerRun(1000, func() { g.Next(&l) }); a != 0 {
		t.Errorf("%v allocations per write", a)
	}
}
