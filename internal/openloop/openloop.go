// Package openloop is the timetable of an open-loop job (open_loop=1):
// every I/O has an intended time, set by rate_iops= (or rate=) and
// rate_process= alone, which no completion moves. A free slot waits for
// the next intended time and issues then; when every slot of iodepth is
// busy at that time, the I/O goes out as soon as one is free, counted as
// late, and none is dropped. Each I/O's response latency is taken from its
// intended time to its completion, so a target that falls behind shows
// its queue in the figures, where fio's latency, taken from the moment
// the I/O was issued, hides it (the coordinated omission of closed-loop
// load generators, after wrk2 and HdrHistogram).
//
// Its rules: the package is pure (time is an argument) and allocates
// only in New; the run loop (run/) owns the schedule of intended times,
// which is fio's rate schedule, and calls Wait, Issue and Complete from
// its one goroutine. Stats imports only internal/fiostat and jobfile, so
// report may hold it.
package openloop

import (
	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
)

// Dir is what an open-loop job measured of one direction.
type Dir struct {
	// Response is the response latency of every I/O accounted, in ns:
	// from its intended time to its completion. Hist holds the same
	// samples in fio's latency histogram (the bins of lat_ns).
	Response fiostat.Stat
	Hist     fiostat.Hist
	// Late counts the I/Os issued after their intended time because
	// every slot was busy then: the target had fallen behind.
	Late uint64
	// LateBy is how late those I/Os went out, in ns.
	LateBy fiostat.Stat
}

// Stats are an open-loop job's figures per direction.
type Stats struct {
	Dirs [jobfile.NumDirs]Dir
}

// Merge adds o's figures to s, as group_reporting merges jobs.
func (s *Stats) Merge(o *Stats) {
	if o == nil {
		return
	}
	for d := range s.Dirs {
		a, b := &s.Dirs[d], &o.Dirs[d]
		a.Response.Merge(b.Response)
		a.Hist.Merge(&b.Hist)
		a.Late += b.Late
		a.LateBy.Merge(b.LateBy)
	}
}

// Timetable is the per-slot state of an open-loop job: the intended time
// of the I/O each slot holds, and which free slots wait for the next one.
type Timetable struct {
	intended []int64 // per slot: the intended time of the I/O in it
	// busySince is, per slot, when it last went from free to busy: it
	// has held an I/O in flight ever since but for the moments between
	// a completion and the next issue.
	busySince []int64
	waiting   []bool // per slot: free and waiting for the next intended time
	idle      int    // slots waiting
	// Stats are what Complete and Issue account; the run loop hands
	// them to the job's result.
	Stats *Stats
}

// New returns the timetable of a job with depth slots, or nil unless
// the job is open-loop.
func New(j *jobfile.Job, depth int) *Timetable {
	if !j.OpenLoop {
		return nil
	}
	t := &Timetable{intended: make([]int64, depth), busySince: make([]int64, depth), waiting: make([]bool, depth), Stats: &Stats{}}
	t.Start()
	return t
}

// Start marks every slot free, as the job's I/O starts: the first I/O
// goes out at its intended time, not late.
func (t *Timetable) Start() {
	for i := range t.waiting {
		t.waiting[i] = true
	}
	t.idle = len(t.waiting)
}

// Wait marks slot as free and waiting for the next intended time (the
// loop then sleeps or reaps until it). A slot is free from the job's
// start and from the completion of its I/O; the loop marks it so when it
// finds the next intended time still ahead.
func (t *Timetable) Wait(slot uint32) {
	if !t.waiting[slot] {
		t.waiting[slot] = true
		t.idle++
	}
}

// Issue records that slot issues, at now, the I/O of direction d whose
// intended time is intended. The I/O is late when its time has passed
// while every slot held an I/O in flight: no slot is waiting, and this
// one, just freed by a completion, has been busy since before the
// intended time. An I/O that a waiting slot could have taken, or whose
// slot went busy only after the intended time (the loop itself was
// behind, asleep past an earlier time), went out late through no fault
// of the target: it is not counted, though its delay still counts in its
// response latency.
func (t *Timetable) Issue(slot uint32, d jobfile.Dir, intended, now int64) {
	t.intended[slot] = intended
	if t.waiting[slot] {
		t.waiting[slot] = false
		t.idle--
		t.busySince[slot] = now
		return
	}
	if now > intended && t.idle == 0 && t.busySince[slot] <= intended {
		ds := &t.Stats.Dirs[d]
		ds.Late++
		ds.LateBy.Add(uint64(now - intended))
	}
}

// Complete accounts the response latency of the I/O of direction d in
// slot, completed at now: from its intended time.
func (t *Timetable) Complete(slot uint32, d jobfile.Dir, now int64) {
	v := uint64(max(now-t.intended[slot], 0))
	ds := &t.Stats.Dirs[d]
	ds.Response.Add(v)
	ds.Hist.Add(v)
}

// ResetStats zeroes the figures, as fio's reset_all_stats does when
// ramp_time ends.
func (t *Timetable) ResetStats() { *t.Stats = Stats{} }

// Intended returns the intended time of the I/O in slot.
func (t *Timetable) Intended(slot uint32) int64 { return t.intended[slot] }

// Idle returns the number of slots waiting for the next intended time.
func (t *Timetable) Idle() int { return t.idle }
