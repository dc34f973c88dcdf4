package ktrace

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/kstage"
)

// record is one slot's I/O as the programs join it (bpf.go's rec*
// offsets): its stamps (bpf_ktime_get_ns), its sector key, its request's
// low 32 bits, a state word (state | bios << 8) and the requests queued
// before and after it to its key's bucket.
type record struct {
	Submit, Bio, Issue, Done, CQE, Key uint64
	Req, State, Prev, Next             uint32
}

// counters are what the programs count apart from the records (bpf.go's
// cnt* offsets): the cutoff stamp before which nothing is traced (the end
// of ramp_time, written by the job), records a new submission found
// still in flight (their completion was never seen) or completed and not
// taken by a reap, and the job's ring (the kernel's pointer to it, named
// by its first traced submission).
type counters struct {
	Cutoff, Lost, Unreaped, Ring uint64
}

func init() {
	if unsafe.Sizeof(record{}) != recordSize || unsafe.Sizeof(counters{}) != countersSize {
		panic("ktrace: record or counters layout differs from the programs'")
	}
}

// shared is the job's view of the records and counters maps, mapped into
// its memory, and the stages it counts from them. It belongs to the
// goroutine that reaps the job's I/Os.
type shared struct {
	recs []record
	cnt  *counters
	maps [][]byte
	base counters // the counters at the last reset
	// cutoff is the counters' Cutoff, which only reset writes, kept here
	// so that a reap reads no line of the counters the programs write.
	cutoff uint64
	st     *kstage.KernelStages
	onJoin func(r Reap, d *[kstage.NumStages]uint64)
	// d holds the stages of the I/O reap joins, here rather than on its
	// stack, which onJoin's pointer would move to the heap for every I/O.
	d [kstage.NumStages]uint64
}

// mapShared maps the records and counters maps of m.
func mapShared(m *maps, slots int, st *kstage.KernelStages) (*shared, error) {
	s := &shared{st: st}
	rb, err := mmapMap(m.records.FD(), slots*recordSize)
	if err != nil {
		return nil, err
	}
	s.maps = append(s.maps, rb)
	cb, err := mmapMap(m.counters.FD(), countersSize)
	if err != nil {
		s.unmap()
		return nil, err
	}
	s.maps = append(s.maps, cb)
	s.recs = unsafe.Slice((*record)(unsafe.Pointer(&rb[0])), slots)
	s.cnt = (*counters)(unsafe.Pointer(&cb[0]))
	return s, nil
}

func mmapMap(fd, n int) ([]byte, error) {
	page := unix.Getpagesize()
	b, err := unix.Mmap(fd, 0, (n+page-1)/page*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, unavailable("mapping a BPF map into memory: %v", err)
	}
	return b, nil
}

func (s *shared) unmap() {
	for _, b := range s.maps {
		unix.Munmap(b)
	}
	s.maps, s.recs, s.cnt = nil, nil, nil
}

// reap takes slot ud's record for the I/O the job harvested, whose lat ran
// from start to end (clock.Nanotime): a joined record whose stamps lie
// within them gives the I/O's six stages, an unjoined one its reason.
func (s *shared) reap(ud uint64, start, end int64) {
	if ud >= uint64(len(s.recs)) {
		return
	}
	r := &s.recs[ud]
	st := atomic.LoadUint32(&r.State) & 0xff
	if st == stateFree {
		return
	}
	atomic.StoreUint32(&r.State, stateFree)
	if r.Submit < s.cutoff {
		return
	}
	k := s.st
	k.Traced++
	switch {
	case st == stateInFlight:
		// Harvested, yet its completion never reached the programs.
		k.Unjoined[kstage.LossLost]++
	case st >= stateUnjoined:
		if l := st - stateUnjoined; l < uint32(kstage.NumLosses) {
			k.Unjoined[l]++
		} else {
			k.Unjoined[kstage.LossLost]++
		}
	case r.Submit < uint64(start) || r.CQE > uint64(end):
		// The record is an earlier try's (a retried I/O).
		k.Unjoined[kstage.LossUnreaped]++
	default:
		d := &s.d
		*d = [kstage.NumStages]uint64{
			r.Submit - uint64(start), r.Bio - r.Submit, r.Issue - r.Bio,
			r.Done - r.Issue, r.CQE - r.Done, uint64(end) - r.CQE,
		}
		k.Add(d)
		if s.onJoin != nil {
			s.onJoin(Reap{UserData: ud, Start: uint64(start), End: uint64(end)}, d)
		}
	}
}

// reset starts the counts again at stamp at (the end of ramp_time):
// requests submitted before it are not counted.
func (s *shared) reset(at int64) {
	s.cutoff = uint64(at)
	atomic.StoreUint64(&s.cnt.Cutoff, s.cutoff)
	s.base = s.load()
	*s.st = kstage.KernelStages{Available: s.st.Available, Reason: s.st.Reason, Sample: s.st.Sample}
}

func (s *shared) load() counters {
	return counters{
		Cutoff:   atomic.LoadUint64(&s.cnt.Cutoff),
		Lost:     atomic.LoadUint64(&s.cnt.Lost),
		Unreaped: atomic.LoadUint64(&s.cnt.Unreaped),
	}
}

// settle counts what the programs counted since the last reset and the
// records still in flight: once the programs are detached and the job
// reaped its last I/O.
func (s *shared) settle() {
	c := s.load()
	k := s.st
	lost, unreaped := c.Lost-s.base.Lost, c.Unreaped-s.base.Unreaped
	k.Unjoined[kstage.LossLost] += lost
	k.Unjoined[kstage.LossUnreaped] += unreaped
	k.Traced += lost + unreaped
	for i := range s.recs {
		r := &s.recs[i]
		if atomic.LoadUint32(&r.State)&0xff == stateInFlight && r.Submit >= c.Cutoff {
			k.InFlight++
		}
	}
}

// Reap is gofio's own record of one I/O: the SQE's user data, the stamp
// its lat starts at (prepared, before submission) and the stamp it ends
// at (its completion, after the harvest), both clock.Nanotime.
type Reap struct {
	UserData   uint64
	Start, End uint64
}

// The io_uring opcodes of reads and writes, whose requests are traced.
const (
	opReadv      = 1
	opWritev     = 2
	opReadFixed  = 4
	opWriteFixed = 5
	opRead       = 22
	opWrite      = 23
)

func (r *record) String() string {
	return fmt.Sprintf("req %#x submit %d bio %d issue %d done %d cqe %d key %#x state %#x prev %d next %d",
		r.Req, r.Submit, r.Bio, r.Issue, r.Done, r.CQE, r.Key, r.State, r.Prev, r.Next)
}
