package ktrace

import "github.com/gofio/gofio/internal/kstage"

// DefaultWindow is how long, in ns of event time, the Joiner holds an event
// back to let events stamped earlier on another CPU arrive first.
const DefaultWindow = 2_000_000

// record is one traced io_uring request on its way through the stages.
type record struct {
	req, ud  uint64
	tid      uint32
	sector   uint64
	sectors  uint32
	bios     int
	iowq     bool // its sector was queued again by another task
	keyed    bool // bySector maps its sector to it
	submit   uint64
	bio      uint64
	issue    uint64
	rqDone   uint64
	cqe      uint64
	next     *record // the next of the same user data waiting for its reap
	freeNext *record
}

// udQueue is one user data's kernel-complete records waiting for gofio's
// reap, oldest first, and its reaps waiting for their record.
type udQueue struct {
	head, tail *record
	reaps      []Reap // reaps[r0:] wait
	r0         int
}

// Joiner joins trace events and gofio's reaps into kernel stages. Feed it
// events in any order within Window of each other (Add), reaps in the
// order the job harvested them (AddReap); Stages then holds what was
// joined. Its zero value is not ready: use NewJoiner. A Joiner belongs to
// one goroutine.
type Joiner struct {
	// Window is the reorder window in ns (DefaultWindow from NewJoiner).
	Window uint64

	buf   []Event // events held back, sorted by TS from head
	head  int
	maxTS uint64

	byReq    map[uint64]*record
	byTid    map[uint32]*record
	bySector map[uint64]*record
	byUD     map[uint64]*udQueue
	free     *record
	// cutoff is the stamp before which submitted requests are not
	// counted.
	cutoff uint64

	st *kstage.KernelStages
	// OnJoin, when set, sees every joined I/O: its reap and its stages.
	OnJoin func(r Reap, d *[kstage.NumStages]uint64)
}

// NewJoiner returns a Joiner that counts into st.
func NewJoiner(st *kstage.KernelStages) *Joiner {
	return &Joiner{
		Window:   DefaultWindow,
		byReq:    make(map[uint64]*record, 1024),
		byTid:    make(map[uint32]*record, 8),
		bySector: make(map[uint64]*record, 1024),
		byUD:     make(map[uint64]*udQueue, 1024),
		st:       st,
	}
}

// Add takes one event. Events stamped more than Window before the newest
// one are joined now, in stamp order.
func (j *Joiner) Add(e Event) {
	// Insert by stamp from the back: the ring is nearly in order.
	j.buf = append(j.buf, e)
	i := len(j.buf) - 1
	for i > j.head && j.buf[i-1].TS > e.TS {
		j.buf[i] = j.buf[i-1]
		i--
	}
	j.buf[i] = e
	if e.TS > j.maxTS {
		j.maxTS = e.TS
	}
	for j.head < len(j.buf) && j.buf[j.head].TS+j.Window <= j.maxTS {
		j.process(&j.buf[j.head])
		j.head++
	}
	if j.head == len(j.buf) {
		j.buf, j.head = j.buf[:0], 0
	} else if j.head > 4096 && j.head*2 > len(j.buf) {
		n := copy(j.buf, j.buf[j.head:])
		j.buf, j.head = j.buf[:n], 0
	}
}

// AddReap takes gofio's record of one completed I/O.
func (j *Joiner) AddReap(r Reap) {
	q := j.queue(r.UserData)
	if q.r0 == len(q.reaps) {
		q.reaps, q.r0 = q.reaps[:0], 0
	}
	q.reaps = append(q.reaps, r)
	j.match(q)
}

// Reset starts the counts again at stamp at (the end of ramp_time):
// requests submitted before it are neither counted nor joined, those
// submitted later are, whenever their events came.
func (j *Joiner) Reset(at uint64) {
	*j.st = kstage.KernelStages{Available: j.st.Available, Reason: j.st.Reason}
	j.cutoff = at
}

// counted reports whether r counts (it was submitted after the last reset).
func (j *Joiner) counted(r *record) bool { return r.submit >= j.cutoff }

// Flush joins every event held back and counts every request still open
// as lost (in flight, or an event of it dropped) and every one still
// waiting for its reap as unreaped. Call it once the job has reaped its
// last I/O.
func (j *Joiner) Flush() {
	for ; j.head < len(j.buf); j.head++ {
		j.process(&j.buf[j.head])
	}
	j.buf, j.head = j.buf[:0], 0
	for ud, q := range j.byUD {
		for q.head != nil {
			r := q.head
			q.head = r.next
			j.lose(r, kstage.LossUnreaped)
		}
		q.tail = nil
		delete(j.byUD, ud)
	}
	for p, r := range j.byReq {
		delete(j.byReq, p)
		j.unkey(r)
		j.lose(r, kstage.LossLost)
	}
	clear(j.byTid)
}

func (j *Joiner) queue(ud uint64) *udQueue {
	q := j.byUD[ud]
	if q == nil {
		q = &udQueue{}
		j.byUD[ud] = q
	}
	return q
}

func (j *Joiner) alloc() *record {
	r := j.free
	if r == nil {
		return &record{}
	}
	j.free = r.freeNext
	*r = record{}
	return r
}

func (j *Joiner) release(r *record) {
	if j.byTid[r.tid] == r {
		delete(j.byTid, r.tid)
	}
	r.freeNext = j.free
	j.free = r
}

// lose counts r as not joined for reason k (when it was traced in this
// epoch) and frees it.
func (j *Joiner) lose(r *record, k kstage.Loss) {
	if j.counted(r) {
		j.st.Traced++
		j.st.Unjoined[k]++
	}
	j.release(r)
}

func (j *Joiner) unkey(r *record) {
	if r.keyed && j.bySector[r.sector] == r {
		delete(j.bySector, r.sector)
	}
	r.keyed = false
}

func (j *Joiner) process(e *Event) {
	switch e.Kind {
	case KindSubmit:
		if !tracedOp(e.Aux) {
			return
		}
		if old := j.byReq[e.A]; old != nil {
			// The request was freed and reused without its completion
			// reaching us: an event was dropped.
			j.unkey(old)
			j.lose(old, kstage.LossLost)
		}
		r := j.alloc()
		r.req, r.ud, r.tid, r.submit = e.A, e.B, e.Tid, e.TS
		j.byReq[e.A] = r
		j.byTid[e.Tid] = r
	case KindBioQueue:
		r := j.byTid[e.Tid]
		if r == nil || r.cqe != 0 {
			// Not a task that submitted: an io-wq worker issuing a
			// punted request, which the request finds out by its sector.
			if o := j.bySector[e.A]; o != nil && o.tid != e.Tid {
				o.iowq = true
			}
			return
		}
		r.bios++
		if r.bios > 1 {
			return // split: the request's stages would be one bio's
		}
		r.bio, r.sector, r.sectors = e.TS, e.A, uint32(e.B)
		if o := j.bySector[e.A]; o != nil && o != r {
			o.keyed = false // an older request to the sector lost its events
		}
		j.bySector[e.A] = r
		r.keyed = true
	case KindRqIssue:
		if r := j.bySector[e.A]; r != nil && r.rqDone == 0 {
			r.issue = e.TS // a requeued request counts from its last issue
		}
	case KindRqComplete:
		if r := j.bySector[e.A]; r != nil && r.issue != 0 && r.rqDone == 0 {
			r.rqDone = e.TS
		}
	case KindComplete:
		r := j.byReq[e.A]
		if r == nil || r.ud != e.B {
			return
		}
		delete(j.byReq, e.A)
		if j.byTid[r.tid] == r {
			delete(j.byTid, r.tid)
		}
		j.unkey(r)
		r.cqe = e.TS
		switch {
		case r.iowq || r.bios == 0:
			j.lose(r, kstage.LossIOWQ)
		case r.bios > 1:
			j.lose(r, kstage.LossSplit)
		case r.issue == 0:
			j.lose(r, kstage.LossMerged)
		case r.rqDone == 0 || r.rqDone > r.cqe:
			j.lose(r, kstage.LossLost)
		default:
			q := j.queue(r.ud)
			if q.tail == nil {
				q.head = r
			} else {
				q.tail.next = r
			}
			q.tail = r
			j.match(q)
		}
	}
}

// match pairs a user data's waiting records with its waiting reaps. A
// reap belongs to the newest record submitted after its start and
// completed before its end; records older than that (an earlier try of a
// retried I/O, or one whose reap was never stamped) are unreaped, and a
// reap with no record (its request was not joined, or not traced) is
// dropped.
func (j *Joiner) match(q *udQueue) {
	for q.head != nil && q.r0 < len(q.reaps) {
		p := q.reaps[q.r0]
		r := q.head
		if r.cqe > p.End {
			q.r0++ // its request was counted as unjoined
			continue
		}
		if r.submit < p.Start {
			q.pop()
			j.lose(r, kstage.LossUnreaped)
			continue
		}
		for r.next != nil && r.next.cqe <= p.End {
			q.pop()
			j.lose(r, kstage.LossUnreaped)
			r = q.head
		}
		q.pop()
		q.r0++
		if !j.counted(r) {
			j.release(r)
			continue
		}
		if !(r.submit <= r.bio && r.bio <= r.issue && r.issue <= r.rqDone && r.rqDone <= r.cqe) {
			// Stamps out of order: the sector's events belong to
			// another request (some were dropped).
			j.lose(r, kstage.LossLost)
			continue
		}
		// Each stage ends at its stamp and starts at the one before:
		// a stage added without its stamp fails to compile (at the end)
		// or fails the join tests (in between).
		var ends [kstage.NumStages]uint64 = [...]uint64{kstage.Enter: r.submit, kstage.Submit: r.bio,
			kstage.Queue: r.issue, kstage.Device: r.rqDone, kstage.TW: r.cqe, kstage.Reap: p.End}
		var d [kstage.NumStages]uint64
		start := p.Start
		for s, end := range ends {
			d[s], start = end-start, end
		}
		j.st.Traced++
		j.st.Add(&d)
		if j.OnJoin != nil {
			j.OnJoin(p, &d)
		}
		j.release(r)
	}
}

func (q *udQueue) pop() {
	q.head = q.head.next
	if q.head == nil {
		q.tail = nil
	}
}
