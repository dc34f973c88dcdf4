package run

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/internal/faultfs"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestIOTimeoutStall: reads stall on the FUSE file after five went
// through; io_timeout=1s ends the job with ETIMEDOUT within the timeout
// plus a second, the message names file, offset, length and age, and the
// report holds the five reads that completed. Under io_uring with
// force_async the job's own thread times the request out and tries
// IORING_OP_ASYNC_CANCEL first; where the thread is asleep in the kernel
// (psync, libaio, io_uring issuing FUSE inline) the watcher takes the job
// over.
func TestIOTimeoutStall(t *testing.T) {
	tests := []struct {
		engine string
		async  bool
		tw     bool // sqthread_poll=1 tw_thread=goroutine
		sqpoll bool // sqthread_poll=1: the job's thread spins in its reaps
		cancel bool // the note says ASYNC_CANCEL was tried
		note   string
	}{
		{engine: "psync"},
		{engine: "libaio"},
		{engine: "io_uring"},
		{engine: "io_uring", async: true, cancel: true},
		// The kernel's SQPOLL thread, the read sent to io-wq: the job's
		// thread busy-polls the CQ ring as fio's does, reading the clock
		// as it spins, and times the read out itself.
		{engine: "io_uring", async: true, sqpoll: true, cancel: true},
		// Issued inline, the read holds the SQ thread, which never frees
		// the SQE the cancel waits for: the watcher takes the job over.
		{engine: "io_uring", sqpoll: true, note: "it is abandoned with its buffers"},
		// The SQPOLL goroutine: the job's thread waits on the hand-off
		// with a time limit and asks the goroutine to cancel. Issued via
		// io-wq, the ring cancels the read; issued inline, the goroutine
		// is itself asleep in the kernel and is abandoned.
		{engine: "io_uring", async: true, tw: true, cancel: true, note: "1 running (interrupted)"},
		{engine: "io_uring", tw: true, cancel: true, note: "the tw_thread goroutine is asleep in the kernel"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/async=%v/tw=%v/sqpoll=%v", tt.engine, tt.async, tt.tw, tt.sqpoll)
		x := faultfs.MountT(t, faultfs.Options{Size: 1 << 20})
		x.Stall(faultfs.Read, 5)
		j := fuseJob(x, "hang", jobfile.RWRead, tt.engine, 1<<20, 1)
		j.IOTimeout = time.Second
		if tt.async {
			j.ForceAsync = 1
		}
		if tt.tw {
			j.SQThreadPoll, j.TWThread = true, "goroutine"
		}
		if tt.sqpoll {
			j.SQThreadPoll, j.RegisterFiles = true, true
		}
		var warn syncBuf
		t0 := time.Now()
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Warn: &warn})
		took := time.Since(t0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := res.Jobs[0]
		// The stall never ends by itself: that the run ended at all is
		// io_timeout's doing. How soon after the timeout depends on the
		// scheduler (a loaded 2-core CI machine), so the bound is the
		// age the report states, which must pass io_timeout and fit in
		// the run, not a wall-clock window.
		want := regexp.MustCompile(`^func=io_timeout, error=Connection timed out: read of 4096 bytes at offset 20480 of ` +
			regexp.QuoteMeta(x.Path()) + ` outstanding for (\d+(?:\.\d+)?m?s) \(io_timeout=1s\)$`)
		m := want.FindStringSubmatch(r.ErrorText)
		if r.Error != int(unix.ETIMEDOUT) || m == nil {
			t.Errorf("%s: err=%d %q; want ETIMEDOUT naming the stalled read", name, r.Error, r.ErrorText)
		} else if age, _ := time.ParseDuration(m[1]); age < time.Second || age > took {
			t.Errorf("%s: reported age %v; want io_timeout=1s or more (to the ms) and within the run's %v", name, age, took)
		}
		if !strings.Contains(warn.String(), "offset 20480 of "+x.Path()) {
			t.Errorf("%s: warnings %q; want the stalled I/O named", name, warn.String())
		}
		if ds := r.Dirs[0]; ds.IOBytes != 5*4096 || ds.Clat.N != 5 {
			t.Errorf("%s: report holds %d bytes, %d completions; want the 5 reads that completed", name, ds.IOBytes, ds.Clat.N)
		}
		notes := strings.Join(r.EngineNotes, "; ")
		if got := strings.Contains(notes, "IORING_OP_ASYNC_CANCEL tried on 1 requests"); got != tt.cancel {
			t.Errorf("%s: notes %q; ASYNC_CANCEL tried: %v, want %v", name, notes, got, tt.cancel)
		}
		if !strings.Contains(notes, tt.note) {
			t.Errorf("%s: notes %q; want %q", name, notes, tt.note)
		}
		if c := x.Counts(); c.StalledNow != 1 {
			t.Errorf("%s: %d requests held by the stall; want the one", name, c.StalledNow)
		}
	}
}

// TestIOTimeoutOffByDefault: without io_timeout the same slow (not
// stalled) reads complete and nothing is tracked.
func TestIOTimeoutOff(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 64 << 10})
	x.Delay(faultfs.Read, 20*time.Millisecond, 1)
	j := fuseJob(x, "slow", jobfile.RWRead, "io_uring", 64<<10, 2)
	j.IOTimeout = 2 * time.Second
	r := runFault(t, j).Jobs[0]
	if r.Error != 0 || r.Dirs[0].IOBytes != 64<<10 {
		t.Errorf("slow but live reads under io_timeout=2s: err=%d bytes=%d", r.Error, r.Dirs[0].IOBytes)
	}
}

// TestIOTimeoutStatusInterval: --status-interval reports show the age of
// the oldest in-flight I/O once it passes a second, before io_timeout
// ends the job.
func TestIOTimeoutStatusInterval(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 1 << 20})
	x.Stall(faultfs.Read, 5)
	j := fuseJob(x, "hang", jobfile.RWRead, "psync", 1<<20, 1)
	j.IOTimeout = 2500 * time.Millisecond
	var mu sync.Mutex
	var notes []string
	opts := Options{StatusInterval: 300 * time.Millisecond, OnStatus: func(r *report.Result) {
		mu.Lock()
		defer mu.Unlock()
		for _, jr := range r.Jobs {
			notes = append(notes, jr.EngineNotes...)
		}
	}}
	res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.Error != int(unix.ETIMEDOUT) {
		t.Errorf("err=%d; want ETIMEDOUT", r.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.HasPrefix(n, "oldest I/O in flight: 1.") || strings.HasPrefix(n, "oldest I/O in flight: 2.")
	}) {
		t.Errorf("status notes %q; want the oldest I/O's age", notes)
	}
}

// refusingEngine accepts one request at a time and never completes it: a
// device that hangs behind a full queue. Every later Submit refuses what
// is queued. Cancel records the slots it was asked about.
type refusingEngine struct {
	queued    []uint32
	inflight  int // slot in flight, -1 none
	cancelled bool
	asked     []uint32
	found     int
}

func (e *refusingEngine) Queue(slot uint32, _ *engines.Request) error {
	e.queued = append(e.queued, slot)
	return nil
}

func (e *refusingEngine) Submit() (int, error) {
	if e.inflight >= 0 || len(e.queued) == 0 {
		return 0, nil
	}
	e.inflight = int(e.queued[0])
	e.queued = e.queued[1:]
	return 1, nil
}

func (e *refusingEngine) Reap(out []engines.Completion, min int) (int, error) {
	return e.ReapTimeout(out, min, 0)
}

func (e *refusingEngine) CanReapTimeout() bool { return true }

func (e *refusingEngine) ReapTimeout(out []engines.Completion, _ int, _ time.Duration) (int, error) {
	if e.cancelled && e.inflight >= 0 && len(out) > 0 {
		out[0] = engines.Completion{Slot: uint32(e.inflight), Res: -int32(unix.ECANCELED)}
		e.inflight, e.cancelled = -1, false
		return 1, nil
	}
	time.Sleep(time.Millisecond)
	return 0, nil
}

func (e *refusingEngine) Cancel(slot uint32) error {
	e.asked = append(e.asked, slot)
	if int(slot) == e.inflight {
		e.cancelled = true
		e.found++
	}
	return nil
}

func (e *refusingEngine) CancelResults() (cancelled, running, notFound int) {
	return e.found, 0, len(e.asked) - e.found
}

func (e *refusingEngine) Close() error { return nil }

// TestIOTimeoutRefusedNotInFlight: a request the engine refused is not in
// flight. With iodepth=2 on an engine that takes one request and hangs
// it, io_timeout names the accepted one and asks the kernel to cancel it
// alone; the refused one, stamped before the submit that refused it, is
// neither cancelled nor counted.
func TestIOTimeoutRefusedNotInFlight(t *testing.T) {
	var eng *refusingEngine
	engs := map[string]engines.Opener{"refusing": func(engines.Setup) (engines.Engine, error) {
		eng = &refusingEngine{inflight: -1}
		return eng, nil
	}}
	j := testJob(t.TempDir(), "refused", jobfile.RWRead, "refusing")
	setDepth(j, 2)
	j.IOTimeout = 300 * time.Millisecond
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Engines: engs})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.Error != int(unix.ETIMEDOUT) || !strings.Contains(r.ErrorText, "read of 4096 bytes at offset 0 of ") {
		t.Fatalf("err=%d %q; want ETIMEDOUT naming the accepted read at offset 0", r.Error, r.ErrorText)
	}
	if len(eng.asked) != 1 || eng.asked[0] != 0 {
		t.Errorf("cancel asked for slots %v; want only slot 0, the one in flight", eng.asked)
	}
	if notes := strings.Join(r.EngineNotes, "; "); !strings.Contains(notes, "tried on 1 requests: 1 cancelled, 0 running (interrupted), 0 not found; 0 still in the kernel") {
		t.Errorf("notes %q; want one request tried and cancelled", notes)
	}
}

// TestIOTimeoutWithoutExtArg: on a kernel whose io_uring cannot wait with
// a time limit, io_timeout still ends a stalled job with ETIMEDOUT: the
// job's thread waits as without io_timeout and the watcher takes the job
// over, and a note says why there was no ASYNC_CANCEL.
func TestIOTimeoutWithoutExtArg(t *testing.T) {
	uringOK(t)
	// A kernel before 5.11: io_uring_setup reports no IORING_FEAT_EXT_ARG.
	preExtArg := uring.Kernel{Setup: func(n uint32, p *uring.Params) (int, error) {
		fd, err := uring.SysSetup(n, p)
		p.Features &^= uring.FeatExtArg
		return fd, err
	}}
	engs := map[string]engines.Opener{"io_uring": iouring.OpenOn(preExtArg)}
	x := faultfs.MountT(t, faultfs.Options{Size: 1 << 20})
	x.Stall(faultfs.Read, 5)
	j := fuseJob(x, "hang", jobfile.RWRead, "io_uring", 1<<20, 1)
	j.IOTimeout = time.Second
	j.ForceAsync = 1 // the thread waits in GETEVENTS, not in the read
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Engines: engs})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.Error != int(unix.ETIMEDOUT) || !strings.Contains(r.ErrorText, "read of 4096 bytes at offset 20480 of "+x.Path()) {
		t.Errorf("err=%d %q; want ETIMEDOUT naming the stalled read", r.Error, r.ErrorText)
	}
	if ds := r.Dirs[0]; ds.IOBytes != 5*4096 {
		t.Errorf("report holds %d bytes; want the 5 reads that completed", ds.IOBytes)
	}
	notes := strings.Join(r.EngineNotes, "; ")
	for _, want := range []string{"IORING_FEAT_EXT_ARG, Linux 5.11): the watcher ends a stuck job", "the job's thread is asleep in the kernel"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q; want %q", notes, want)
		}
	}
}
