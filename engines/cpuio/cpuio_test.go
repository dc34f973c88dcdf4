package cpuio

import (
	"bytes"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

func job(load, chunks int, mode string) *jobfile.Job {
	return withOptions(jobfile.Job{}, Options{CPULoad: load, CPUChunks: chunks, CPUMode: mode})
}

// TestNoopCycle checks that a noop request burns cpuchunks of wall time
// and that the think time makes the burn cpuload% of each period.
func TestNoopCycle(t *testing.T) {
	for _, tt := range []struct {
		load  int
		think time.Duration
	}{{50, 2 * time.Millisecond}, {25, 6 * time.Millisecond}, {100, 0}} {
		eng, err := Open(engines.Setup{Job: job(tt.load, 2000, "noop"), Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		if got := e.ThinkTime(); got != tt.think {
			t.Errorf("cpuload=%d: think %v, want %v", tt.load, got, tt.think)
		}
		start := time.Now()
		e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: make([]byte, 4096)})
		e.Submit()
		if d := time.Since(start); d < 2*time.Millisecond {
			t.Errorf("cpuload=%d: a 2 ms cycle took %v", tt.load, d)
		}
		out := make([]engines.Completion, 1)
		if n, _ := e.Reap(out, 1); n != 1 || out[0].Res != 4096 {
			t.Errorf("completion %d %+v", n, out[0])
		}
	}
}

// TestQsortCycle checks that the qsort mode sorts fio's data and takes
// its cycle from the time the sorts took.
func TestQsortCycle(t *testing.T) {
	eng, err := Open(engines.Setup{Job: job(50, 50000, "qsort"), Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := eng.(*Engine)
	e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: make([]byte, 512)})
	e.Submit()
	d := e.qsort
	for i := 1; i < len(d); i++ {
		if d[i-1] < d[i] {
			t.Fatalf("data not in descending order at %d after the last sort", i)
		}
	}
	if e.cycle == 50*time.Millisecond || e.ThinkTime() != e.cycle {
		t.Errorf("cycle %v think %v: want the measured sort time, think = cycle at 50%%", e.cycle, e.ThinkTime())
	}
}

// TestInfoLine checks the line fio's cpuio prints when it is set up, for
// both modes (fio 3.33: "c (noop): ioengine=cpuio, cpuload=50,
// cpucycle=50000").
func TestInfoLine(t *testing.T) {
	for _, mode := range []string{"noop", "qsort"} {
		j := job(50, 50000, mode)
		j.Name = "c"
		var info bytes.Buffer
		eng, err := Open(engines.Setup{Job: j, Depth: 1, Info: &info})
		if err != nil {
			t.Fatal(err)
		}
		want := "c (" + mode + "): ioengine=cpuio, cpuload=50, cpucycle=50000\n"
		if info.String() != want {
			t.Errorf("cpumode=%s: info %q, want %q", mode, info.String(), want)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNeedsLoad(t *testing.T) {
	if _, err := Open(engines.Setup{Job: job(0, 50000, "noop"), Depth: 1}); err == nil {
		t.Error("cpuload=0 accepted")
	}
}

// withOptions returns j with its engine's own options o, as the parse
// gives them.
func withOptions(j jobfile.Job, o Options) *jobfile.Job {
	j.SetEngineConfig(&o)
	return &j
}
