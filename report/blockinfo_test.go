package report

import (
	"bufio"
	"strings"
	"testing"
)

// TestBlockPercentiles: the blocks sort as fio's calc_block_percentiles
// means to (never trimmed first, then by trim count, failures last), the
// percentiles index the trimmed ones only, and the states are counted.
func TestBlockPercentiles(t *testing.T) {
	b := make(BlockInfos, 10)
	// Blocks 0-1 never trimmed; 2-5 once; 6-7 twice; 8 five times; 9
	// trimmed three times, then a trim failed (its count stops).
	for i, n := range []int{0, 0, 1, 1, 1, 1, 2, 2, 5, 3} {
		for k := 0; k < n; k++ {
			b.Trimmed(i)
		}
	}
	b.Failed(9, false)
	b.Trimmed(9)
	pct, states, ok := blockPercentiles(b, []float64{1, 50, 75, 99.99})
	if !ok {
		t.Fatal("nothing to report")
	}
	// Sorted trimmed part (8 blocks): 1 1 1 1 2 2 5 | failed 3.
	want := []uint32{1, 2, 5, 3}
	for i := range want {
		if pct[i] != want[i] {
			t.Fatalf("percentiles %v, want %v", pct, want)
		}
	}
	if states != [blockStates]uint32{2, 7, 0, 1, 0} {
		t.Fatalf("states %v", states)
	}
	if _, _, ok := blockPercentiles(make(BlockInfos, 4), []float64{50}); ok {
		t.Error("a histogram with no block trimmed reports percentiles")
	}
}

// TestBlockInfosNormal: fio's show_block_infos layout, the percentiles
// wrapped at 75 columns.
func TestBlockInfosNormal(t *testing.T) {
	b := make(BlockInfos, 4)
	for i := 0; i < 4; i++ {
		for k := 0; k <= i; k++ {
			b.Trimmed(i)
		}
	}
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	writeBlockInfosNormal(w, b, percentileList(nil))
	w.Flush()
	want := "  block lifetime percentiles :\n" +
		"   | 1.00th=1, 5.00th=1, 10.00th=1, 20.00th=1, 30.00th=2, 40.00th=2, 50.00th=3,\n" +
		"   | 60.00th=3, 70.00th=3, 80.00th=4, 90.00th=4, 95.00th=4, 99.00th=4,\n" +
		"   | 99.50th=4, 99.90th=4, 99.95th=4, 99.99th=4\n" +
		"        states               : unwritten=0, trimmed=4, written=0, trim failure=0, write failure=0\n"
	if sb.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", sb.String(), want)
	}
	var none strings.Builder
	w = bufio.NewWriter(&none)
	writeBlockInfosNormal(w, nil, percentileList(nil))
	w.Flush()
	if none.Len() != 0 || blockInfosJSON(nil, percentileList(nil)) != nil {
		t.Error("a job without block_error_percentiles reports blocks")
	}
}
