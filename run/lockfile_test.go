package run

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// lockProbeEngine is a synchronous engine whose requests take a while and
// record how many ran at once: overall, and alongside a write.
type lockProbeEngine struct {
	engines.Sync
}

func (lockProbeEngine) Close() error { return nil }

// lockProbe counts the requests running at once across engines.
type lockProbe struct {
	active, writers atomic.Int32
	maxActive       atomic.Int32
	writeWithOthers atomic.Int32 // a write ran while another request did
	reads, writes   atomic.Int32
}

func (o *lockProbe) opener() engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		sy, err := engines.NewSync("overlap", s.Depth, len(s.Files), false, func(r *engines.Request) int32 {
			n := o.active.Add(1)
			for m := o.maxActive.Load(); n > m && !o.maxActive.CompareAndSwap(m, n); m = o.maxActive.Load() {
			}
			if r.Op == engines.OpWrite {
				o.writes.Add(1)
				if n > 1 {
					o.writeWithOthers.Add(1)
				}
				o.writers.Add(1)
			} else {
				o.reads.Add(1)
				if o.writers.Load() > 0 {
					o.writeWithOthers.Add(1)
				}
			}
			time.Sleep(time.Millisecond)
			if r.Op == engines.OpWrite {
				o.writers.Add(-1)
			}
			o.active.Add(-1)
			return int32(len(r.Buf))
		})
		return &lockProbeEngine{sy}, err
	}
}

// TestLockFile runs four numjobs clones on one file: with
// lockfile=exclusive no two I/Os run at once, with readwrite no write runs
// beside another I/O while reads may share, and without a lock they
// overlap (which shows the test can see it).
func TestLockFile(t *testing.T) {
	for _, mode := range []string{"exclusive", "readwrite", "none"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			jobs := parseJobs(t, dir, fmt.Sprintf("[l]\nioengine=psync\nrw=randrw\nbs=4k\nsize=64k\nnumjobs=4\nfilename=%s/f\nlockfile=%s\n", dir, mode))
			var o lockProbe
			res := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{"psync": o.opener()}})
			var ios uint64
			for _, jr := range res.Jobs {
				ios += jr.Dirs[jobfile.DirRead].TotalIOs + jr.Dirs[jobfile.DirWrite].TotalIOs
			}
			if ios != 64 || int(o.reads.Load()+o.writes.Load()) != 64 {
				t.Fatalf("%d I/Os counted, %d run; want 64 (4 jobs of 16)", ios, o.reads.Load()+o.writes.Load())
			}
			switch mode {
			case "exclusive":
				if m := o.maxActive.Load(); m != 1 {
					t.Errorf("%d I/Os ran at once, want 1", m)
				}
			case "readwrite":
				if n := o.writeWithOthers.Load(); n != 0 {
					t.Errorf("%d writes ran beside another I/O", n)
				}
			case "none":
				if m := o.maxActive.Load(); m < 2 {
					t.Errorf("without a lock at most %d I/O ran at once: the test cannot see lockProbe", m)
				}
			}
		})
	}
}

// TestLockFileSections checks the job sections planLockSections gives: a
// numjobs clone has its section's first job's, another job its own
// (target.TestFileLocksShared checks the locks a section shares).
func TestLockFileSections(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, fmt.Sprintf("[global]\nioengine=psync\nsize=64k\nfilename=%[1]s/f\nlockfile=exclusive\n[a]\nnumjobs=2\n[b]\n[c]\nlockfile=none\n", dir))
	runs := make([]*jobRun, len(jobs))
	for i, j := range jobs {
		runs[i] = &jobRun{job: j}
	}
	planLockSections(runs)
	for i, want := range []int{0, 0, 2, 3} {
		if runs[i].lockSection != want {
			t.Errorf("job %d (%s): section %d, want %d", i, runs[i].job.Name, runs[i].lockSection, want)
		}
	}
}
