package ktrace

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/tracepoint"
)

// The join's rules are tested on the programs themselves: built as raw
// tracepoint programs over a test layout (every field in its own 8-byte
// word, the stamp at 0 and the task at 8), loaded into this kernel and run
// with BPF_PROG_TEST_RUN on synthetic events, then read through the same
// shared records the job reads. Root only.

// Test record layouts.
var (
	testUring = uringFields{req: ref{Off: 16, Size: 8}, userData: ref{Off: 24, Size: 8}, opcode: ref{Off: 32, Size: 1},
		ctx: ref{Off: 40, Size: 8}}
	testBlock = blockFields{dev: ref{Off: 16, Size: 4}, sector: ref{Off: 24, Size: 8}}
	testTPs   = &tracepoints{submitName: "submit", sub: testUring, cqe: testUring,
		bio: testBlock, issue: testBlock, done: testBlock, requeue: testBlock}
)

// The test's job: two submitting threads, a disk (dev 7:0) with a
// partition (7:1), and another disk not traced.
const (
	testTid   = 100
	testSQTid = 101
	testDisk  = 7 << 20
	testPart  = 7<<20 | 1
	otherDisk = 8 << 20
	testRing  = 0xf000
	otherRing = 0xe000
)

type rig struct {
	t     *testing.T
	cpu   uint32 // the CPU the next events run on
	g     *gen
	progs []*ebpf.Program
	sh    *shared
	st    kstage.KernelStages
	joins []Reap
	now   uint64
}

func newRig(t *testing.T, slots int) *rig {
	t.Helper()
	return newSampledRig(t, slots, 1)
}

// newSampledRig is newRig with the programs tracing 1 in sample
// submissions: under test, those whose stamp is a multiple of sample.
func newSampledRig(t *testing.T, slots, sample int) *rig {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("loading and running BPF programs needs root; skipping")
	}
	g, err := newGen(slots, []int{testTid, testSQTid}, []device{{testDisk, 1}, {testPart, 1}})
	if err != nil {
		t.Fatal(err)
	}
	g.test = true
	g.sample = int32(sample)
	r := &rig{t: t, g: g, now: 1_000_000}
	r.st.Available = true
	t.Cleanup(func() {
		for _, p := range r.progs {
			p.Close()
		}
		if r.sh != nil {
			r.sh.unmap()
		}
		g.m.close()
	})
	if r.sh, err = mapShared(g.m, slots, &r.st); err != nil {
		t.Fatal(err)
	}
	r.sh.onJoin = func(rp Reap, _ *[kstage.NumStages]uint64) { r.joins = append(r.joins, rp) }
	for _, s := range g.programs(testTPs) {
		p, err := tracepoint.LoadType(ebpf.RawTracepoint, s.what, s.name, s.ins)
		if err != nil {
			t.Fatal(err)
		}
		r.progs = append(r.progs, p)
	}
	return r
}

// The programs in programs' order.
const (
	pSubmit = iota
	pBio
	pIssue
	pDone
	pRequeue
	pComplete
)

// run runs program p on one event at stamp ts by task tid with the
// event's words from offset 16 on.
func (r *rig) run(p int, ts uint64, tid uint32, words ...uint64) {
	r.t.Helper()
	ctx := make([]byte, 16+8*len(words))
	binary.LittleEndian.PutUint64(ctx, ts)
	binary.LittleEndian.PutUint32(ctx[8:], tid)
	for i, w := range words {
		binary.LittleEndian.PutUint64(ctx[16+8*i:], w)
	}
	if _, err := r.progs[p].Run(&ebpf.RunOptions{Context: ctx, CPU: r.cpu, Flags: unix.BPF_F_TEST_RUN_ON_CPU}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) submit(ts uint64, tid uint32, ud, req uint64) {
	r.run(pSubmit, ts, tid, req, ud, opRead, testRing)
}
func (r *rig) bio(ts uint64, tid uint32, dev uint32, sector uint64) {
	r.run(pBio, ts, tid, uint64(dev), sector)
}
func (r *rig) block(p int, ts uint64, dev uint32, sector uint64) {
	r.run(p, ts, 0, uint64(dev), sector)
}
func (r *rig) complete(ts, ud, req uint64) { r.run(pComplete, ts, 0, req, ud, 0, testRing) }

// simple runs one I/O through every event, 1 µs apart from base, and
// returns its start and end stamps.
func (r *rig) simple(base uint64, ud, req, sector uint64) (int64, int64) {
	r.submit(base+1000, testTid, ud, req)
	r.bio(base+2000, testTid, testDisk, sector)
	r.block(pIssue, base+3000, testDisk, sector)
	r.block(pDone, base+4000, testDisk, sector)
	r.complete(base+5000, ud, req)
	return int64(base), int64(base + 6000)
}

func (r *rig) wantStages(i int, want [kstage.NumStages]float64) {
	r.t.Helper()
	for s, w := range want {
		if got := r.st.Stages[s].Mean; got != w {
			r.t.Fatalf("%d: stage %s mean %v, want %v (stages %+v)", i, kstage.Stage(s), got, w, r.st.Stages)
		}
	}
}

// TestJoinOneIO: an I/O's events give its six stages, exactly, and the
// slot is free for the next.
func TestJoinOneIO(t *testing.T) {
	r := newRig(t, 4)
	for i := range 3 {
		start, end := r.simple(uint64(i)*1e6, 2, 0xff00, 800)
		r.sh.reap(2, start, end)
		r.wantStages(i, [kstage.NumStages]float64{1000, 1000, 1000, 1000, 1000, 1000})
	}
	if r.st.Traced != 3 || r.st.Joined != 3 || len(r.joins) != 3 {
		t.Fatalf("traced %d joined %d", r.st.Traced, r.st.Joined)
	}
	r.sh.settle()
	if r.st.InFlight != 0 || r.st.Traced != 3 {
		t.Fatalf("%+v", r.st)
	}
}

// TestJoinMigrated: a submitting thread that moves to another CPU between
// its request and its bio still joins them.
func TestJoinMigrated(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: no other to move to")
	}
	r := newRig(t, 2)
	r.submit(1000, testSQTid, 1, 0xf1)
	r.cpu = 1
	r.bio(2000, testSQTid, testDisk, 8)
	r.block(pIssue, 3000, testDisk, 8)
	r.cpu = 0
	r.block(pDone, 4000, testDisk, 8)
	r.complete(5000, 1, 0xf1)
	r.sh.reap(1, 0, 6000)
	if r.st.Joined != 1 {
		t.Fatalf("joined %d, unjoined %v", r.st.Joined, r.st.Unjoined)
	}
}

// TestJoinSameSector: requests in flight to one sector are told apart in
// the order they were queued, whichever completes first.
func TestJoinSameSector(t *testing.T) {
	r := newRig(t, 4)
	// Three reads of sector 64: queued 0, 1, 2; issued in that order;
	// the device completes them in order; their CQEs come 2, 0, 1.
	for i := range uint64(3) {
		r.submit(1000+i*100, testTid, i, 0xa0+i)
		r.bio(1010+i*100, testTid, testDisk, 64)
	}
	for i := range uint64(3) {
		r.block(pIssue, 2000+i*10, testDisk, 64)
	}
	for i := range uint64(3) {
		r.block(pDone, 3000+i*1000, testDisk, 64)
	}
	for _, i := range []uint64{2, 0, 1} {
		r.complete(10000+i*7, i, 0xa0+i)
	}
	for i := range uint64(3) {
		r.sh.reap(i, int64(900+i*100), 20000)
	}
	if r.st.Joined != 3 {
		t.Fatalf("joined %d of %d: %v", r.st.Joined, r.st.Traced, r.st.Unjoined)
	}
	// The device times are 3000-2000, 4000-2010 and 5000-2020.
	if got := r.st.Stages[kstage.Device]; got.Min != 1000 || got.Max != 2980 {
		t.Fatalf("device stage %+v", got)
	}
}

// TestJoinUnjoined: each way an I/O fails to join is counted under its
// reason, and a foreign completion or device changes nothing.
func TestJoinUnjoined(t *testing.T) {
	r := newRig(t, 8)
	// iowq: its bio is queued by another task.
	r.submit(1000, testTid, 0, 0xb0)
	r.bio(1100, 999, testDisk, 8)
	r.complete(1500, 0, 0xb0)
	// split: two bios.
	r.submit(2000, testTid, 1, 0xb1)
	r.bio(2100, testTid, testDisk, 16)
	r.bio(2101, testTid, testDisk, 24)
	r.block(pIssue, 2200, testDisk, 16)
	r.block(pDone, 2300, testDisk, 16)
	r.complete(2400, 1, 0xb1)
	// merged: no issue of its own.
	r.submit(3000, testTid, 2, 0xb2)
	r.bio(3100, testTid, testDisk, 32)
	r.complete(3400, 2, 0xb2)
	// lost: its device completion never came.
	r.submit(4000, testSQTid, 3, 0xb3)
	r.bio(4100, testSQTid, testDisk, 40)
	r.block(pIssue, 4200, testDisk, 40)
	r.complete(4400, 3, 0xb3)
	// A completion of another request with the same user data, on this
	// ring or another, and block events of a disk not traced, change
	// nothing.
	r.submit(5000, testTid, 4, 0xb4)
	r.bio(5100, testTid, testPart, 48) // a partition's bio: its disk's key
	r.block(pIssue, 5200, otherDisk, 48)
	r.block(pIssue, 5210, testDisk, 48)
	r.block(pDone, 5300, otherDisk, 48)
	r.block(pDone, 5310, testDisk, 48)
	r.complete(5350, 4, 0xdead)
	r.run(pComplete, 5360, 0, 0xb4, 4, 0, otherRing)
	r.complete(5400, 4, 0xb4)
	for ud := range uint64(5) {
		r.sh.reap(ud, 0, 10000)
	}
	want := [kstage.NumLosses]uint64{kstage.LossIOWQ: 1, kstage.LossSplit: 1, kstage.LossMerged: 1, kstage.LossLost: 1}
	if r.st.Unjoined != want || r.st.Joined != 1 || r.st.Traced != 5 {
		t.Fatalf("joined %d of %d, unjoined %v, want %v", r.st.Joined, r.st.Traced, r.st.Unjoined, want)
	}
	if d := r.st.Stages[kstage.Queue].Mean; d != 110 {
		t.Fatalf("queue %v, want 110 (the traced disk's issue)", d)
	}
}

// TestJoinRequeue: a requeued request's queue stage ends at its last
// issue.
func TestJoinRequeue(t *testing.T) {
	r := newRig(t, 2)
	r.submit(1000, testTid, 1, 0xc1)
	r.bio(1100, testTid, testDisk, 8)
	r.block(pIssue, 1200, testDisk, 8)
	r.block(pRequeue, 1300, testDisk, 8)
	r.block(pIssue, 1700, testDisk, 8)
	r.block(pDone, 1800, testDisk, 8)
	r.complete(1900, 1, 0xc1)
	r.sh.reap(1, 0, 2000)
	r.wantStages(0, [kstage.NumStages]float64{1000, 100, 600, 100, 100, 100})
}

// TestJoinSettle: the end of ramp_time starts the counts again; a record
// still in flight at the end is in flight, not lost; one whose completion
// never came is lost when its slot is submitted again, and one completed
// and never reaped is unreaped.
func TestJoinSettle(t *testing.T) {
	r := newRig(t, 4)
	// Before the cutoff: reaped, not counted after the reset.
	start, end := r.simple(0, 0, 0xd0, 8)
	r.sh.reap(0, start, end)
	r.sh.reset(100_000)
	// Submitted before the cutoff, completed after: not counted.
	r.submit(99_000, testTid, 1, 0xd1)
	r.complete(101_000, 1, 0xd1)
	r.sh.reap(1, 98_000, 102_000)
	// Lost: submitted, completion never traced, submitted again.
	r.submit(200_000, testTid, 2, 0xd2)
	start, end = r.simple(300_000, 2, 0xd2, 16)
	r.sh.reap(2, start, end)
	// Unreaped: completed, never reaped, submitted again.
	r.simple(400_000, 3, 0xd3, 24)
	start, end = r.simple(500_000, 3, 0xd3, 24)
	r.sh.reap(3, start, end)
	// In flight at the end.
	r.submit(600_000, testTid, 0, 0xd4)
	r.sh.settle()
	want := [kstage.NumLosses]uint64{kstage.LossLost: 1, kstage.LossUnreaped: 1}
	if r.st.Joined != 2 || r.st.Traced != 4 || r.st.Unjoined != want || r.st.InFlight != 1 {
		t.Fatalf("%+v", r.st)
	}
}

// TestJoinRandom runs thousands of I/Os at depth 32 over 16 sectors (so
// that several requests share a sector all the time), the device
// completing a sector's requests in the order they were issued and the
// CQEs coming in any order: every I/O joins with its own stages.
func TestJoinRandom(t *testing.T) {
	const depth, n = 32, 4000
	r := newRig(t, depth)
	rng := rand.New(rand.NewPCG(1, 2))
	type io struct {
		ud, req, sector uint64
		start, end      int64
		st              [kstage.NumStages]uint64
	}
	var sum [kstage.NumStages]float64
	ts := uint64(1_000_000)
	for round := 0; round < n/depth; round++ {
		ios := make([]io, depth)
		for i := range ios {
			o := &ios[i]
			o.ud, o.req, o.sector = uint64(i), 0xe000+uint64(rng.IntN(4*depth)), uint64(rng.IntN(16))*8
			o.start = int64(ts)
			for s := range o.st {
				o.st[s] = uint64(1 + rng.IntN(1000))
			}
		}
		// Requests are unique while in flight.
		seen := map[uint64]bool{}
		for i := range ios {
			for seen[ios[i].req] {
				ios[i].req++
			}
			seen[ios[i].req] = true
		}
		t0 := ts + 10_000
		for i := range ios {
			o := &ios[i]
			r.submit(t0+uint64(i), testTid, o.ud, o.req)
			r.bio(t0+uint64(i)+1, testTid, testDisk, o.sector)
			o.st[0] = t0 + uint64(i) - uint64(o.start)
			o.st[1] = 1
		}
		// Issue in queue order; complete in issue order per sector.
		t1 := t0 + 1000
		for i := range ios {
			r.block(pIssue, t1+uint64(i), testDisk, ios[i].sector)
			ios[i].st[2] = t1 + uint64(i) - (t0 + uint64(i) + 1)
		}
		t2 := t1 + 2000
		for i := range ios {
			r.block(pDone, t2+uint64(i), testDisk, ios[i].sector)
			ios[i].st[3] = t2 - t1
		}
		t3 := t2 + 3000
		for _, i := range rng.Perm(depth) {
			o := &ios[i]
			r.complete(t3+uint64(i), o.ud, o.req)
			o.st[4] = t3 + uint64(i) - (t2 + uint64(i))
			o.end = int64(t3 + 5000)
			o.st[5] = uint64(o.end) - (t3 + uint64(i))
		}
		for _, i := range rng.Perm(depth) {
			o := &ios[i]
			r.sh.reap(o.ud, o.start, o.end)
			for s, v := range o.st {
				sum[s] += float64(v)
			}
		}
		ts = t3 + 10_000
	}
	r.sh.settle()
	r.emptyBuckets()
	if r.st.Joined != n/depth*depth || r.st.Traced != r.st.Joined || r.st.LostEvents != 0 {
		t.Fatalf("joined %d of %d, unjoined %v, lost events %d", r.st.Joined, r.st.Traced, r.st.Unjoined, r.st.LostEvents)
	}
	for s := range sum {
		if want := sum[s] / float64(r.st.Joined); r.st.Stages[s].Mean-want > 1e-6 || want-r.st.Stages[s].Mean > 1e-6 {
			t.Fatalf("stage %s mean %v, want %v", kstage.Stage(s), r.st.Stages[s].Mean, want)
		}
	}
}

// emptyBuckets fails unless every bucket's chain is empty (every request
// left its bucket when it completed or was lost).
func (r *rig) emptyBuckets() {
	r.t.Helper()
	var head uint32
	for b := range uint32(buckets(int(r.g.slots))) {
		if err := r.g.m.heads.Lookup(b, &head); err != nil || head != 0 {
			r.t.Fatalf("bucket %d: head %d, %v", b, head, err)
		}
	}
}

// TestJoinSharedBucket: requests to different sectors whose keys share a
// bucket are told apart by their keys, and each leaves the bucket's chain
// when it completes, the middle one first, or when its completion is lost.
func TestJoinSharedBucket(t *testing.T) {
	r := newRig(t, 8)
	n := buckets(8)
	want := bucketOf(1<<48|8, n)
	var sectors []uint64
	for s := uint64(16); len(sectors) < 5; s += 8 {
		if bucketOf(1<<48|s, n) == want {
			sectors = append(sectors, s)
		}
	}
	// Queued 0, 1, 2: the chain 2 -> 1 -> 0.
	for i := range uint64(3) {
		r.submit(1000+i*10, testTid, i, 0xa0+i)
		r.bio(1001+i*10, testTid, testDisk, sectors[i])
	}
	// 1, the middle one, completes first, and its slot takes a request
	// to another bucket, still in flight while 0 and 2 are found.
	r.block(pIssue, 2001, testDisk, sectors[1])
	r.block(pDone, 3001, testDisk, sectors[1])
	r.complete(4001, 1, 0xa1)
	r.sh.reap(1, 900, 5000)
	r.submit(5001, testTid, 1, 0xa5)
	r.bio(5002, testTid, testDisk, 8)
	for _, i := range []uint64{2, 0} {
		r.block(pIssue, 6000+i, testDisk, sectors[i])
		r.block(pDone, 7000+i, testDisk, sectors[i])
	}
	r.complete(8000, 0, 0xa0)
	r.complete(8002, 2, 0xa2)
	r.sh.reap(0, 900, 9000)
	r.sh.reap(2, 900, 9000)
	r.block(pIssue, 9001, testDisk, 8)
	r.block(pDone, 10001, testDisk, 8)
	r.complete(11001, 1, 0xa5)
	r.sh.reap(1, 5000, 12000)
	// 3's completion is lost: its slot is submitted again, and 4 queued
	// to the bucket after it joins.
	r.submit(20000, testTid, 3, 0xa3)
	r.bio(20001, testTid, testDisk, sectors[3])
	start, end := r.simple(21000, 3, 0xa6, sectors[4])
	r.sh.reap(3, start, end)
	r.emptyBuckets()
	r.sh.settle()
	if r.st.Joined != 5 || r.st.Traced != 6 || r.st.Unjoined[kstage.LossLost] != 1 {
		t.Fatalf("joined %d of %d: %v", r.st.Joined, r.st.Traced, r.st.Unjoined)
	}
	// Every device time is 1000.
	if got := r.st.Stages[kstage.Device]; got.Min != 1000 || got.Max != 1000 {
		t.Fatalf("device stage %+v", got)
	}
}

// TestJoinSampled: with 1 in 2 submissions drawn, the drawn I/Os join
// with their exact stages while the others, each submitted by the same
// thread right after a drawn one and in flight beside it, leave no trace:
// their bios do not mark the drawn request before them split, and their
// completions and reaps count nothing.
func TestJoinSampled(t *testing.T) {
	r := newSampledRig(t, 8, 2)
	const base = 1_000_000
	for i := range uint64(8) {
		ts := base + i*10_000 + i%2 // odd stamps are not drawn
		r.submit(ts, testTid, i, 0xff00+i)
		r.bio(ts+1000, testTid, testDisk, 800+8*i)
	}
	for i := range uint64(8) {
		ts := base + i*10_000 + 100_000
		r.block(pIssue, ts, testDisk, 800+8*i)
		r.block(pDone, ts+1000, testDisk, 800+8*i)
		r.complete(ts+2000, i, 0xff00+i)
	}
	for i := range uint64(8) {
		r.sh.reap(i, int64(base+i*10_000-1000), int64(base+i*10_000+200_000))
	}
	if r.st.Traced != 4 || r.st.Joined != 4 || len(r.joins) != 4 {
		t.Fatalf("traced %d joined %d (%d seen), unjoined %v; want the 4 drawn", r.st.Traced, r.st.Joined, len(r.joins), r.st.Unjoined)
	}
	for k, j := range r.joins {
		if j.UserData != uint64(2*k) {
			t.Fatalf("join %d is slot %d, want the drawn slot %d", k, j.UserData, 2*k)
		}
	}
	// Drawn I/O i: submitted at base+i*10000, its bio 1000 later, issued
	// at base+i*10000+100000, done 1000 and posted 2000 after that.
	r.wantStages(0, [kstage.NumStages]float64{1000, 1000, 99_000, 1000, 1000, 98_000})
	r.sh.settle()
	if r.st.InFlight != 0 || r.st.Traced != 4 {
		t.Fatalf("after settle: %+v", r.st)
	}
}
