package zbd

import (
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// sharedTest returns a device of nz zones of 1 MiB shared by n jobs with
// 64 KiB blocks, each over all of it.
func sharedTest(t *testing.T, nz uint64, maxOpen int, n int, c Config) (*Device, []*Job) {
	t.Helper()
	d, err := NewDevice("f", nz*mib, mib, 0, maxOpen)
	if err != nil {
		t.Fatal(err)
	}
	for dir := range c.MinBS {
		c.MinBS[dir] = 64 * kib
	}
	var jobs []*Job
	for i := 0; i < n; i++ {
		j := NewJob(c)
		if err := j.AddFile(d, "f", 0, nz*mib, nz*mib, maxOpen); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	for _, j := range jobs {
		j.FileReset(0)
	}
	return d, jobs
}

// blocked runs f on a goroutine and reports whether it is still running
// after a while (it waits for a zone lock), with a channel closed when it
// returns.
func blocked(f func()) (bool, chan struct{}) {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return false, done
	case <-time.After(50 * time.Millisecond):
		return true, done
	}
}

// TestZoneLockAcrossJobs checks fio's zone lock between two jobs on one
// device: a job's write holds its zone until End, so the other job's
// write to the zone first completes its own I/O (quiesce) and then waits,
// and lands at the write pointer the first one left; a write to a full
// zone whose last write is in flight waits for it and then resets the
// zone; an I/O not issued after all (Commit of 0 bytes) and ReleaseAll
// let the zone go. A device one job uses is not shared and takes no lock.
func TestZoneLockAcrossJobs(t *testing.T) {
	d, jj := sharedTest(t, 4, 1, 2, Config{Write: true})
	a, b := jj[0], jj[1]
	if !d.Shared() || !a.Holds(0, jobfile.DirWrite) {
		t.Fatal("a device two jobs use is not shared")
	}
	quiesced := 0
	b.SetQuiesce(func() bool { quiesced++; return false }, false)
	off, n, ok := issue(a, jobfile.DirWrite, 0, 64*kib)
	if !ok || off != 0 {
		t.Fatalf("first write at %d (ok %v)", off, ok)
	}
	var boff uint64
	wait, done := blocked(func() { boff, _, _ = issue(b, jobfile.DirWrite, 3*mib, 64*kib) })
	if !wait {
		t.Fatalf("a write to the only open zone, whose write is in flight, went to %d without waiting", boff)
	}
	a.End(0, jobfile.DirWrite, off, n, true)
	<-done
	if quiesced != 1 || boff != 64*kib {
		t.Errorf("the waiting write: %d quiesce calls, at %d; want 1 and the write pointer %d", quiesced, boff, 64*kib)
	}
	b.End(0, jobfile.DirWrite, boff, 64*kib, true)

	// A reset waits for the write in flight that filled the zone.
	d, jj = sharedTest(t, 4, 0, 2, Config{Write: true})
	a, b = jj[0], jj[1]
	for k := uint64(0); k < 16; k++ {
		off, n, _ = issue(a, jobfile.DirWrite, 0, 64*kib)
		if k < 15 {
			a.End(0, jobfile.DirWrite, off, n, true)
		}
	}
	wait, done = blocked(func() { boff, _, _ = issue(b, jobfile.DirWrite, 0, 64*kib) })
	if !wait || b.Resets != 0 {
		t.Fatalf("a reset of a zone whose last write is in flight did not wait (%d resets)", b.Resets)
	}
	a.End(0, jobfile.DirWrite, off, n, true)
	<-done
	if b.Resets != 1 || boff != 0 || d.WritePointer(0) != 64*kib {
		t.Errorf("after the write completed: %d resets, write at %d, wp %d; want a reset and the zone's start", b.Resets, boff, d.WritePointer(0))
	}
	b.End(0, jobfile.DirWrite, boff, 64*kib, true)

	// Not issued: Commit of 0 bytes releases; ReleaseAll too.
	off, _, _ = a.Adjust(0, 0, jobfile.DirWrite, mib, 64*kib)
	a.Commit(0, jobfile.DirWrite, off, 0)
	if wait, _ := blocked(func() { issue(b, jobfile.DirWrite, mib, 64*kib) }); wait {
		t.Error("a write waits for a zone whose I/O was not issued")
	}
	issue(a, jobfile.DirWrite, 2*mib, 64*kib)
	wait, done = blocked(func() { issue(b, jobfile.DirWrite, 2*mib, 64*kib) })
	a.ReleaseAll()
	<-done
	if !wait {
		t.Error("a write did not wait for a zone another job holds")
	}

	alone, j := newTest(t, 4, 0, Config{Write: true})
	if alone.Shared() || j.Holds(0, jobfile.DirWrite) {
		t.Error("a device one job uses is shared")
	}
	_, rb := sharedTest(t, 4, 0, 2, Config{Read: true, ReadBeyondWP: true})
	if rb[0].Holds(0, jobfile.DirRead) {
		t.Error("a read_beyond_wp read holds its zone; fio takes no lock for it")
	}
}

// TestZoneLockStress runs four jobs with an asynchronous engine of depth
// 4 on random writes, reads and the open-zone limit of one shared device,
// each on its own goroutine, I/O completing after a random while, and
// checks what fio's locks guarantee: when a write is placed no other job
// has I/O in flight in its zone, and it goes to the zone's write pointer,
// or to its start after a reset; a read stays below the write pointer.
func TestZoneLockStress(t *testing.T) {
	const nz, jobs, depth, ios = 8, 4, 4, 400
	d, jj := sharedTest(t, nz, 3, jobs, Config{Write: true, Read: true, Random: true})
	var (
		mu      sync.Mutex
		owner   [nz]int // the job with I/O in flight in the zone, -1 none
		count   [nz]int
		wp      [nz]uint64
		resets  int
		clashes []string
	)
	for z := range owner {
		owner[z], wp[z] = -1, uint64(z)*mib
	}
	type io struct {
		dir    jobfile.Dir
		off, n uint64
	}
	end := func(j *Job, q *[]io) {
		for _, x := range *q {
			mu.Lock()
			z := x.off / mib
			if count[z]--; count[z] == 0 {
				owner[z] = -1
			}
			mu.Unlock()
			j.End(0, x.dir, x.off, x.n, true)
		}
		*q = (*q)[:0]
	}
	var wg sync.WaitGroup
	for i, j := range jj {
		i, j := i, j
		var q []io
		j.SetQuiesce(func() bool { any := len(q) > 0; end(j, &q); return any }, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(i)))
			for k := 0; k < ios && j.Err == nil; k++ {
				dir := j.AdjustDir(0, []jobfile.Dir{jobfile.DirRead, jobfile.DirWrite, jobfile.DirWrite}[r.Intn(3)])
				off, n, ok := j.Adjust(0, 0, dir, uint64(r.Intn(nz*16))*64*kib, 64*kib)
				if !ok {
					continue
				}
				z := off / mib
				mu.Lock()
				if owner[z] != -1 && owner[z] != i && len(clashes) < 5 {
					clashes = append(clashes, "job placed I/O in a zone with another job's I/O in flight")
				}
				switch {
				case dir == jobfile.DirRead && off+n > wp[z]:
					clashes = append(clashes, "read beyond the write pointer")
				case dir == jobfile.DirRead:
				case off == z*mib && wp[z] != off:
					resets++
					wp[z] = off + n
				case off != wp[z]:
					clashes = append(clashes, "write away from the write pointer")
				default:
					wp[z] = off + n
				}
				owner[z] = i
				count[z]++
				mu.Unlock()
				j.Commit(0, dir, off, n)
				q = append(q, io{dir, off, n})
				if len(q) == depth || r.Intn(3) == 0 {
					// Complete the oldest after a while, as reap does.
					time.Sleep(time.Duration(r.Intn(50)) * time.Microsecond)
					first := q[:1]
					end(j, &first)
					q = q[1:]
				}
			}
			end(j, &q)
		}()
	}
	wg.Wait()
	var total uint64
	for _, j := range jj {
		if j.Err != nil {
			t.Errorf("job error %v", j.Err)
		}
		total += j.Resets
	}
	for _, c := range clashes {
		t.Error(c)
	}
	if total != uint64(resets) {
		t.Errorf("jobs report %d resets, their writes imply %d", total, resets)
	}
	for z := range d.zones {
		if d.zones[z].owner != nil || d.inflight != 0 {
			t.Fatalf("zone %d still locked (inflight %d) after every I/O ended", z, d.inflight)
		}
	}
	t.Logf("%d resets", resets)
}

// TestJobMaxOpenAcrossJobs checks fio's open-zone accounting across jobs
// that share a device: max_open_zones counts the device's open zones,
// job_max_open_zones each job's, and the job whose write fills a zone
// closes it and counts it off its own open zones (fio's
// td->num_open_zones, unsigned), even where another job opened it: then
// the opener stays at its limit and the closer's count wraps, and neither
// opens another zone, so both jobs' I/O ends.
func TestJobMaxOpenAcrossJobs(t *testing.T) {
	d, jj := sharedTest(t, 4, 2, 2, Config{Write: true, JobMaxOpen: 1})
	a, b := jj[0], jj[1]
	off, n, _ := issue(a, jobfile.DirWrite, 0, 64*kib)
	a.End(0, jobfile.DirWrite, off, n, true)
	for k := 0; k < 15; k++ {
		off, n, ok := issue(b, jobfile.DirWrite, 0, 64*kib)
		if !ok || off/mib != 0 {
			t.Fatalf("b's write %d at %d (ok %v), want zone 0, which a opened", k, off, ok)
		}
		b.End(0, jobfile.DirWrite, off, n, true)
	}
	if o := d.OpenZones(); len(o) != 0 || a.numOpen != 1 || b.numOpen != ^uint32(0) {
		t.Fatalf("after b filled a's zone: open %v, a counts %d, b %d; want none, 1 and b's count wrapped", o, a.numOpen, b.numOpen)
	}
	for _, j := range jj {
		if _, _, ok := issue(j, jobfile.DirWrite, 2*mib, 64*kib); ok || j.Err != nil {
			t.Errorf("a job at or past its job_max_open_zones opened a zone (ok %v, err %v)", ok, j.Err)
		}
	}
}
