package ktrace

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/gofio/gofio/internal/kstage"
)

// simIO is one synthetic I/O: its stamps and how it goes wrong.
type simIO struct {
	ud, req, sector uint64
	tid             uint32
	start, submit   uint64
	bio, issue, rq  uint64
	cqe, end        uint64
	punt            bool // the bio is queued by an io-wq worker
	split           bool // two bios
	merged          bool // its bio joins another request: no issue of its own
}

// events returns the I/O's trace events.
func (s *simIO) events() []Event {
	ev := []Event{{Kind: KindSubmit, Aux: opRead, Tid: s.tid, TS: s.submit, A: s.req, B: s.ud}}
	bioTid := s.tid
	if s.punt {
		bioTid = 9999
	}
	ev = append(ev, Event{Kind: KindBioQueue, Tid: bioTid, TS: s.bio, A: s.sector, B: BlockB(7<<20, 8)})
	if s.split {
		ev = append(ev, Event{Kind: KindBioQueue, Tid: bioTid, TS: s.bio + 1, A: s.sector + 4, B: BlockB(7<<20, 4)})
	}
	if !s.merged {
		ev = append(ev, Event{Kind: KindRqIssue, TS: s.issue, A: s.sector, B: BlockB(7<<20, 8)},
			Event{Kind: KindRqComplete, TS: s.rq, A: s.sector, B: BlockB(7<<20, 8)})
	}
	return append(ev, Event{Kind: KindComplete, TS: s.cqe, A: s.req, B: s.ud})
}

// simulate makes n I/Os at depth slots: user data is the slot, request
// pointers cycle through a few (io_uring's request cache) and sectors
// through a few (a small file), so every key wraps many times.
func simulate(rng *rand.Rand, n, depth int) []*simIO {
	ios := make([]*simIO, 0, n)
	free := make([]uint64, depth) // when each slot is free again
	busy := map[uint64]uint64{}   // when each sector is free again
	t := uint64(1_000_000)
	for i := 0; i < n; i++ {
		ud := uint64(i % depth)
		start := max(t, free[ud]) + uint64(rng.IntN(500))
		// Two requests in flight to one sector cannot be told apart by
		// the block events: a sector is reused only once it is free.
		sector := uint64(rng.IntN(4*depth)) * 8
		for busy[sector] > start {
			sector = uint64(rng.IntN(4*depth)) * 8
		}
		s := &simIO{ud: ud, req: 0xffff0000 + uint64(i%(depth+3))*0x40, sector: sector, tid: 100,
			start: start}
		s.submit = s.start + 100 + uint64(rng.IntN(2000))
		s.bio = s.submit + 300 + uint64(rng.IntN(300))
		s.issue = s.bio + 200 + uint64(rng.IntN(5000))
		s.rq = s.issue + 5000 + uint64(rng.IntN(50000))
		s.cqe = s.rq + 1000 + uint64(rng.IntN(80000))
		s.end = s.cqe + 500 + uint64(rng.IntN(300000))
		free[ud] = s.end + 1
		busy[sector] = s.cqe + 1
		t = s.bio + 10 // the task queues the bio before it takes the next SQE
		ios = append(ios, s)
	}
	return ios
}

// inOrder returns the events of ios sorted by stamp, then moved about by up
// to jitter ns (events of different CPUs reach the ring out of order),
// keeping the order of each task's own events.
func inOrder(rng *rand.Rand, ios []*simIO, jitter uint64) []Event {
	var ev []Event
	for _, s := range ios {
		ev = append(ev, s.events()...)
	}
	key := make([]uint64, len(ev))
	for i := range ev {
		key[i] = ev[i].TS
		if jitter > 0 && ev[i].Tid == 0 {
			key[i] += uint64(rng.Int64N(int64(jitter)))
		}
	}
	idx := make([]int, len(ev))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return key[idx[a]] < key[idx[b]] })
	out := make([]Event, len(ev))
	for i, k := range idx {
		out[i] = ev[k]
	}
	return out
}

// feed gives the joiner the events and, for each I/O, its reap once the
// events before its end stamp are in, as the tracer's drain would.
func feed(j *Joiner, ev []Event, ios []*simIO) {
	reaps := make([]*simIO, len(ios))
	copy(reaps, ios)
	sort.Slice(reaps, func(a, b int) bool { return reaps[a].end < reaps[b].end })
	k := 0
	for _, e := range ev {
		for k < len(reaps) && reaps[k].end <= e.TS {
			j.AddReap(Reap{UserData: reaps[k].ud, Start: reaps[k].start, End: reaps[k].end})
			k++
		}
		j.Add(e)
	}
	for ; k < len(reaps); k++ {
		j.AddReap(Reap{UserData: reaps[k].ud, Start: reaps[k].start, End: reaps[k].end})
	}
	j.Flush()
}

// checkExact checks that the stage sums and counts are those of the I/Os
// that should join.
func checkExact(t *testing.T, st *kstage.KernelStages, joined []*simIO) {
	t.Helper()
	if st.Joined != uint64(len(joined)) {
		t.Fatalf("joined %d, want %d (unjoined %v)", st.Joined, len(joined), st.Unjoined)
	}
	var want [kstage.NumStages]float64
	var lat float64
	for _, s := range joined {
		d := [kstage.NumStages]uint64{s.submit - s.start, s.bio - s.submit, s.issue - s.bio, s.rq - s.issue, s.cqe - s.rq, s.end - s.cqe}
		for i, v := range d {
			want[i] += float64(v)
		}
		lat += float64(s.end - s.start)
	}
	var sum float64
	for i := range want {
		got := st.Stages[i].Mean * float64(st.Stages[i].N)
		if d := got - want[i]; d > 1e-6*want[i] || d < -1e-6*want[i] {
			t.Fatalf("stage %s: sum %.0f, want %.0f", kstage.Stage(i), got, want[i])
		}
		sum += got
	}
	// The stages add up to gofio's lat, I/O by I/O, so in sum too.
	if d := sum - lat; d > 1e-6*lat || d < -1e-6*lat {
		t.Fatalf("stages add up to %.0f ns, lat to %.0f", sum, lat)
	}
}

// TestJoinInOrder joins a clean stream: every I/O joins, with its exact
// stages, though the keys wrap round many times as the rings do (user data
// is the slot of an 8-deep ring, request pointers come back from io_uring's
// request cache, sectors from a small file).
func TestJoinInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ios := simulate(rng, 20000, 8)
	var st kstage.KernelStages
	feed(NewJoiner(&st), inOrder(rng, ios, 0), ios)
	if st.Traced != 20000 {
		t.Fatalf("traced %d", st.Traced)
	}
	checkExact(t, &st, ios)
}

// TestJoinOutOfOrderCPUs moves the device's events (other CPUs) about by up
// to a millisecond: the reorder window puts them back.
func TestJoinOutOfOrderCPUs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ios := simulate(rng, 20000, 32)
	var st kstage.KernelStages
	feed(NewJoiner(&st), inOrder(rng, ios, 1_000_000), ios)
	checkExact(t, &st, ios)
}

// TestJoinKinds mixes io-wq punts, split and merged bios into the stream:
// each is counted under its kind, the rest join exactly.
func TestJoinKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ios := simulate(rng, 10000, 16)
	var good []*simIO
	want := map[kstage.Loss]uint64{}
	for i, s := range ios {
		switch i % 10 {
		case 3:
			s.punt = true
			want[kstage.LossIOWQ]++
		case 5:
			s.split = true
			want[kstage.LossSplit]++
		case 7:
			s.merged = true
			want[kstage.LossMerged]++
		default:
			good = append(good, s)
		}
	}
	var st kstage.KernelStages
	feed(NewJoiner(&st), inOrder(rng, ios, 0), ios)
	checkExact(t, &st, good)
	for k, n := range want {
		if st.Unjoined[k] != n {
			t.Fatalf("%s: %d, want %d (all: %v)", k, st.Unjoined[k], n, st.Unjoined)
		}
	}
	if st.Traced != st.Joined+st.Unjoined[kstage.LossIOWQ]+st.Unjoined[kstage.LossSplit]+st.Unjoined[kstage.LossMerged] {
		t.Fatalf("traced %d != joined %d + unjoined %v", st.Traced, st.Joined, st.Unjoined)
	}
}

// TestJoinLostEvents drops one event in fifty at random (a full ring): no
// I/O joins with wrong stages, and every traced one is accounted for.
func TestJoinLostEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ios := simulate(rng, 20000, 16)
	ev := inOrder(rng, ios, 0)
	kept := ev[:0]
	dropped := map[[2]uint64]bool{} // (req, submit) of I/Os that lost an event
	owner := map[Event]*simIO{}
	for _, s := range ios {
		for _, e := range s.events() {
			owner[e] = s
		}
	}
	for _, e := range ev {
		if rng.IntN(50) == 0 {
			s := owner[e]
			dropped[[2]uint64{s.req, s.submit}] = true
			continue
		}
		kept = append(kept, e)
	}
	var st kstage.KernelStages
	feed(NewJoiner(&st), kept, ios)
	var good []*simIO
	for _, s := range ios {
		if !dropped[[2]uint64{s.req, s.submit}] {
			good = append(good, s)
		}
	}
	// An I/O that lost an event never joins; one that lost none may
	// still not (its submit and bio can be taken for another's), but
	// whatever joins has its exact stages: no stage underflows, and the
	// joined count stays close to the clean I/Os.
	if st.Joined > uint64(len(good)) || st.Joined < uint64(len(good))*95/100 {
		t.Fatalf("joined %d of %d clean I/Os", st.Joined, len(good))
	}
	var unj uint64
	for _, n := range st.Unjoined {
		unj += n
	}
	if st.Joined+unj != st.Traced {
		t.Fatalf("traced %d, joined %d, unjoined %v", st.Traced, st.Joined, st.Unjoined)
	}
	for i := range st.Stages {
		if st.Stages[i].Max > 1_000_000 {
			t.Fatalf("stage %s max %d ns: a wrong join", kstage.Stage(i), st.Stages[i].Max)
		}
	}
}

// TestJoinReset drops what was traced before a reset (ramp_time) from the
// counts, including requests in flight across it.
func TestJoinReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ios := simulate(rng, 2000, 4)
	ev := inOrder(rng, ios, 0)
	var st kstage.KernelStages
	j := NewJoiner(&st)
	cut := ios[1000].submit
	var after []*simIO
	for _, s := range ios {
		if s.submit > cut {
			after = append(after, s)
		}
	}
	reset := false
	reaps := append([]*simIO(nil), ios...)
	sort.Slice(reaps, func(a, b int) bool { return reaps[a].end < reaps[b].end })
	k := 0
	for _, e := range ev {
		if !reset && e.TS > cut {
			// Everything stamped before the cut is joined first, as the
			// job loop's reset comes after its own earlier stamps.
			for k < len(reaps) && reaps[k].end <= cut {
				j.AddReap(Reap{UserData: reaps[k].ud, Start: reaps[k].start, End: reaps[k].end})
				k++
			}
			j.Reset(cut + 1)
			reset = true
		}
		for k < len(reaps) && reaps[k].end <= e.TS {
			if reaps[k].end > cut || !reset {
				j.AddReap(Reap{UserData: reaps[k].ud, Start: reaps[k].start, End: reaps[k].end})
			}
			k++
		}
		j.Add(e)
	}
	for ; k < len(reaps); k++ {
		j.AddReap(Reap{UserData: reaps[k].ud, Start: reaps[k].start, End: reaps[k].end})
	}
	j.Flush()
	if st.Traced != uint64(len(after)) {
		t.Fatalf("traced %d after the reset, want %d", st.Traced, len(after))
	}
	checkExact(t, &st, after)
}

// TestJoinUnreaped counts kernel-complete requests gofio never stamped
// (an I/O retried after -EAGAIN, or a lost reap) as unreaped, and the
// retried I/O's last try joins.
func TestJoinUnreaped(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ios := simulate(rng, 1000, 1)
	var st kstage.KernelStages
	j := NewJoiner(&st)
	for _, e := range inOrder(rng, ios, 0) {
		j.Add(e)
	}
	// I/O 0 and 1 are two tries of one I/O (start of 0, end of 1); I/O 2's
	// reap is lost.
	j.AddReap(Reap{UserData: 0, Start: ios[0].start, End: ios[1].end})
	for _, s := range ios[3:] {
		j.AddReap(Reap{UserData: s.ud, Start: s.start, End: s.end})
	}
	j.Flush()
	if st.Joined != 998 || st.Unjoined[kstage.LossUnreaped] != 2 {
		t.Fatalf("joined %d, unreaped %d", st.Joined, st.Unjoined[kstage.LossUnreaped])
	}
}

// TestEventCoding round-trips an event through its ring record.
func TestEventCoding(t *testing.T) {
	e := Event{Kind: KindRqComplete, Aux: 3, Tid: 77, TS: 1 << 40, A: 123456, B: BlockB(259<<20|1, 8)}
	var b [EventSize]byte
	e.Encode(b[:])
	var got Event
	if !Decode(b[:], &got) || got != e {
		t.Fatalf("got %+v, want %+v", got, e)
	}
	if Decode(b[:10], &got) {
		t.Fatal("a short record decoded")
	}
}
