package verifylog

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/gofio/gofio/engines/all" // the null engine, for the parse
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
)

// TestWriteLogRewriteInFlight checks a sorted log at iodepth above 1, as
// fio 3.33 logs a write when it issues it: a rewrite issued while the
// older write of its block is in flight takes that one out of the log's
// count and off the trim list at once, and the older one never joins the
// log when it completes, whichever of the two completes first; a block
// issued before a logged rewrite of it completes out as well.
func TestWriteLogRewriteInFlight(t *testing.T) {
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: []string{"--name=r", "--ioengine=null", "--rw=randtrimwrite", "--norandommap",
		"--bs=4k", "--size=1m", "--verify=null", "--trim_percentage=100", "--trim_backlog=1"}})
	if err != nil {
		t.Fatal(err)
	}
	job := jobs[0]
	for _, olderFirst := range []bool{true, false} {
		w := New([]iogen.Region{{Size: 1 << 20}}, 4096, true)
		w.Flying = make([]FlyingWrite, 4)
		w.Trim = NewTrimList(job, 1, 4)
		w.Issued(0, 0, 8192, 4096)  // the older write of block 8192
		w.Issued(1, 0, 12288, 8192) // overlaps neither: 12288-20480
		w.Issued(2, 0, 4096, 8192)  // the rewrite: 4096-12288 overlaps the first
		if got := w.Live + w.InFlight; got != 2 {
			t.Fatalf("olderFirst=%v: %d blocks in the log's count after the rewrite's issue, want 2 (fio's io_hist_len)", olderFirst, got)
		}
		if w.Trim.PickedInFlight != 2 {
			t.Fatalf("olderFirst=%v: %d picked writes in flight, want 2: the overtaken one left the list", olderFirst, w.Trim.PickedInFlight)
		}
		order := []uint32{0, 2, 1}
		if !olderFirst {
			order = []uint32{2, 0, 1}
		}
		for _, si := range order {
			f := w.Flying[si]
			w.Completed(si, f.File, f.Off, f.N)
		}
		if w.Live != 2 || w.InFlight != 0 || w.Trim.Listed != 2 {
			t.Fatalf("olderFirst=%v: live %d, in flight %d, listed %d; want 2, 0, 2", olderFirst, w.Live, w.InFlight, w.Trim.Listed)
		}
		w.Finish()
		var got []string
		for _, e := range w.Ents {
			got = append(got, fmt.Sprintf("%d+%d", e.Off, e.N))
		}
		if strings.Join(got, " ") != "4096+8192 12288+8192" {
			t.Fatalf("olderFirst=%v: verify reads %v, want the rewrite and the other block", olderFirst, got)
		}
	}
	// A block issued before a rewrite that completed first is out when
	// it completes, and the rewrite stays.
	w := New([]iogen.Region{{Size: 1 << 20}}, 4096, true)
	w.Flying = make([]FlyingWrite, 2)
	w.Issued(0, 0, 0, 4096)
	w.Completed(0, 0, 0, 4096)
	w.Issued(0, 0, 65536, 4096)
	w.Issued(1, 0, 65536, 4096)
	w.Completed(1, 0, 65536, 4096)
	w.Completed(0, 0, 65536, 4096)
	if w.Live != 2 {
		t.Fatalf("live %d, want 2", w.Live)
	}
	w.Finish()
	if len(w.Ents) != 2 || place(w.Ents[1].Seq) != 2*seqStep {
		t.Fatalf("log %+v, want block 0 and the later write of 65536", w.Ents)
	}
}

// TestWriteLogFirstInFlight checks that verify_backlog waits while fio's
// log would start with a write in flight: in a sorted log a write in
// flight below the lowest logged block, in a list one issued before the
// oldest.
func TestWriteLogFirstInFlight(t *testing.T) {
	for _, sorted := range []bool{true, false} {
		w := New([]iogen.Region{{Size: 1 << 20}}, 4096, sorted)
		w.Flying = make([]FlyingWrite, 2)
		w.Issued(0, 0, 8192, 4096)
		w.Issued(1, 0, 4096, 4096)
		w.Completed(1, 0, 4096, 4096) // logged; the write of 8192 is in flight
		if got, want := w.FirstInFlight(), !sorted; got != want {
			t.Errorf("sorted=%v: first in flight %v, want %v (8192 was issued first, and is above 4096)", sorted, got, want)
		}
		w.Issued(1, 0, 0, 4096) // issued last, below every logged block
		if !w.FirstInFlight() {
			t.Errorf("sorted=%v: first not in flight with a write of 0 in flight, below the log (and 8192's, issued first)", sorted)
		}
		w.Completed(0, 0, 8192, 4096)
		w.Completed(1, 0, 0, 4096)
		if w.FirstInFlight() {
			t.Errorf("sorted=%v: first in flight with nothing in flight", sorted)
		}
	}
}

// TestWriteLogKeepsLastOverlap checks the write log's dedupe: per file
// and offset order, and where blocks overlap only the latest survives.
func TestWriteLogKeepsLastOverlap(t *testing.T) {
	w := New([]iogen.Region{{Size: 1 << 20}, {Size: 1 << 20}}, 4096, true)
	adds := []struct {
		file int32
		off  uint64
		n    uint32
	}{
		{0, 8192, 4096},  // rewritten by the next write
		{0, 8192, 4096},  // overwritten by the 16k write that follows
		{0, 0, 16384},    // covers both; partly overwritten by the next
		{0, 12288, 4096}, // latest over 12288: kept, the 16k block dropped
		{1, 0, 4096},     // another file: kept
		{0, 65536, 8192}, // partly overwritten by the next: dropped
		{0, 69632, 4096}, // kept
	}
	for _, a := range adds {
		w.Add(a.file, a.off, a.n)
	}
	w.Finish()
	var got []string
	for _, e := range w.Ents {
		got = append(got, fmt.Sprintf("%d:%d+%d", e.File, e.Off, e.N))
	}
	want := "0:12288+4096 0:69632+4096 1:0+4096"
	if strings.Join(got, " ") != want {
		t.Fatalf("log %v, want %s", got, want)
	}
}
