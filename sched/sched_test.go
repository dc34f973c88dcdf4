package sched

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// run executes a script against a queue of 16 slots and returns the order
// in which items came out. Script words:
//
//	hN    add a heavy item for slot N
//	cN    add a completion for slot N
//	bN,M  add completions N, M, ... as one harvested batch
//	n     run one item (records "hN" or "cN", or "-" when empty)
//	*     run items until the queue is empty
func run(t *testing.T, p Policy, script string) string {
	t.Helper()
	q := NewQueue(16, p)
	var out []string
	var now int64
	next := func() {
		it, ok := q.Next(now)
		if !ok {
			out = append(out, "-")
			return
		}
		out = append(out, fmt.Sprintf("%c%d", it.Kind.String()[0], it.Slot))
	}
	for _, w := range strings.Fields(script) {
		now++
		switch {
		case w == "n":
			next()
		case w == "*":
			for q.Len() > 0 {
				next()
			}
		case w[0] == 'h' || w[0] == 'c':
			n, err := strconv.Atoi(w[1:])
			if err != nil {
				t.Fatalf("bad word %q", w)
			}
			if w[0] == 'h' {
				q.AddHeavy(uint32(n), now)
			} else {
				q.AddCompletion(uint32(n), now)
			}
		case w[0] == 'b':
			b := NewBatch()
			for _, f := range strings.Split(w[1:], ",") {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("bad word %q", w)
				}
				q.Add(&b, uint32(n), now)
			}
			q.AddBatch(&b)
			if b.Len() != 0 {
				t.Fatalf("batch not emptied after AddBatch")
			}
		default:
			t.Fatalf("bad word %q", w)
		}
	}
	return strings.Join(out, " ")
}

func TestQueueOrder(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		priority string
		fifo     string
	}{
		// An empty queue yields nothing under both policies.
		{"empty", "n n", "- -", "- -"},
		// Heavy items alone keep arrival order.
		{"heavy only", "h0 h1 h2 *", "h0 h1 h2", "h0 h1 h2"},
		// Completions alone keep arrival order.
		{"completions only", "c3 c1 c2 *", "c3 c1 c2", "c3 c1 c2"},
		// A completion arriving behind queued heavy work jumps ahead
		// under priority and waits its turn under fifo: the patch's
		// timeline.
		{"irq behind heavy", "h0 h1 h2 c5 *", "c5 h0 h1 h2", "h0 h1 h2 c5"},
		// A burst of completions between heavy items: priority drains
		// the whole burst first.
		{"burst", "h0 h1 c2 c3 c4 h5 *", "c2 c3 c4 h0 h1 h5", "h0 h1 c2 c3 c4 h5"},
		// A harvested batch enters as one splice, in harvest order.
		{"batch", "h0 b4,2,7 h1 *", "c4 c2 c7 h0 h1", "h0 c4 c2 c7 h1"},
		// Two batches merge in order behind each other.
		{"batch merge order", "b1,2 h0 b3,4 *", "c1 c2 c3 c4 h0", "c1 c2 h0 c3 c4"},
		// Interleaved running: a completion added after one heavy ran
		// still runs before the remaining heavy items under priority.
		{"interleaved", "h0 h1 h2 n c6 n n n", "h0 c6 h1 h2", "h0 h1 h2 c6"},
		// Running past the end yields nothing.
		{"drain past end", "c1 n n", "c1 -", "c1 -"},
	}
	for _, tt := range tests {
		for _, pc := range []struct {
			p    Policy
			want string
		}{{Priority, tt.priority}, {FIFO, tt.fifo}} {
			t.Run(tt.name+"/"+pc.p.String(), func(t *testing.T) {
				if got := run(t, pc.p, tt.script); got != pc.want {
					t.Errorf("script %q: got %q, want %q", tt.script, got, pc.want)
				}
			})
		}
	}
}

func TestQueueEmptyBatch(t *testing.T) {
	for _, p := range []Policy{Priority, FIFO} {
		q := NewQueue(4, p)
		b := NewBatch()
		q.AddHeavy(0, 1)
		q.AddBatch(&b)
		q.AddHeavy(1, 2)
		if q.Len() != 2 {
			t.Fatalf("%v: len %d after empty batch, want 2", p, q.Len())
		}
		if c, h := q.Pending(); c != 0 || h != 2 {
			t.Fatalf("%v: pending %d/%d, want 0/2", p, c, h)
		}
	}
}

func TestQueueWait(t *testing.T) {
	// The tw wait of an item is the Next time minus its add time.
	q := NewQueue(4, FIFO)
	q.AddHeavy(0, 100)
	q.AddCompletion(1, 150)
	if it, _ := q.Next(400); it.Wait != 300 || it.Slot != 0 {
		t.Fatalf("first item %+v, want slot 0 wait 300", it)
	}
	if it, _ := q.Next(410); it.Wait != 260 || it.Kind != Completion {
		t.Fatalf("second item %+v, want completion wait 260", it)
	}
}

func TestQueuePending(t *testing.T) {
	for _, p := range []Policy{Priority, FIFO} {
		q := NewQueue(8, p)
		q.AddHeavy(0, 0)
		q.AddCompletion(1, 0)
		q.AddCompletion(2, 0)
		if c, h := q.Pending(); c != 2 || h != 1 {
			t.Errorf("%v: pending %d/%d, want 2/1", p, c, h)
		}
		k, ok := q.Peek()
		want := Completion
		if p == FIFO {
			want = Heavy
		}
		if !ok || k != want {
			t.Errorf("%v: peek %v, want %v", p, k, want)
		}
	}
}

func TestListOps(t *testing.T) {
	k := NewLinks(10)
	collect := func(l List) string {
		var s []string
		for i := l.head; i != None; i = k.Next(i) {
			s = append(s, strconv.Itoa(int(i)))
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		name string
		do   func() List
		want string
		n    int
	}{
		// Push order is kept.
		{"push", func() List { l := NewList(); k.PushBack(&l, 1); k.PushBack(&l, 2); return l }, "1,2", 2},
		// PushFront goes ahead.
		{"push front", func() List { l := NewList(); k.PushBack(&l, 1); k.PushFront(&l, 0); return l }, "0,1", 2},
		// PushFront onto an empty list sets the tail too.
		{"push front empty", func() List { l := NewList(); k.PushFront(&l, 3); k.PushBack(&l, 4); return l }, "3,4", 2},
		// Splicing an empty list is a no-op.
		{"splice empty", func() List { l, e := NewList(), NewList(); k.PushBack(&l, 1); k.Splice(&l, &e); return l }, "1", 1},
		// Splicing onto an empty list takes the source whole.
		{"splice into empty", func() List {
			l, s := NewList(), NewList()
			k.PushBack(&s, 5)
			k.PushBack(&s, 6)
			k.Splice(&l, &s)
			return l
		}, "5,6", 2},
		// Merge puts the first list ahead of the second.
		{"merge", func() List {
			a, b := NewList(), NewList()
			k.PushBack(&a, 7)
			k.PushBack(&b, 8)
			k.PushBack(&a, 9)
			return k.Merge(&a, &b)
		}, "7,9,8", 3},
		// Reverse flips the order and fixes the tail.
		{"reverse", func() List {
			l := NewList()
			for i := uint32(0); i < 4; i++ {
				k.PushBack(&l, i)
			}
			k.Reverse(&l)
			k.PushBack(&l, 9)
			return l
		}, "3,2,1,0,9", 5},
		// Popping the last element leaves a usable empty list.
		{"pop to empty", func() List {
			l := NewList()
			k.PushBack(&l, 1)
			k.PopFront(&l)
			if _, ok := k.PopFront(&l); ok {
				panic("pop from empty list succeeded")
			}
			k.PushBack(&l, 2)
			return l
		}, "2", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.do()
			if got := collect(l); got != tt.want || l.Len() != tt.n {
				t.Errorf("got %q len %d, want %q len %d", got, l.Len(), tt.want, tt.n)
			}
		})
	}
}

func testHandoff(t *testing.T, h Handoff) {
	const producers, per = 4, 500
	done := make(chan struct{})
	for p := 0; p < producers; p++ {
		go func(p int) {
			for i := 0; i < per; i++ {
				h.Push(uint32(p*per + i))
			}
			done <- struct{}{}
		}(p)
	}
	seen := make([]int, producers*per)
	last := make([]int, producers)
	for i := range last {
		last[i] = -1
	}
	finished, got := 0, 0
	for got < producers*per {
		l := NewList()
		h.TakeAll(&l)
		for {
			i, ok := h.PopFront(&l)
			if !ok {
				break
			}
			seen[i]++
			got++
			p, k := int(i)/per, int(i)%per
			if k <= last[p] {
				t.Fatalf("producer %d: item %d after %d, push order lost", p, k, last[p])
			}
			last[p] = k
		}
		select {
		case <-done:
			finished++
		default:
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("slot %d taken %d times", i, n)
		}
	}
	for ; finished < producers; finished++ {
		<-done
	}
}

func TestLockedHandoff(t *testing.T) { testHandoff(t, NewLockedList(NewLinks(2000))) }

func TestLockFreeHandoff(t *testing.T) { testHandoff(t, NewLockFreeList(2000)) }

func TestPolicyNames(t *testing.T) {
	if PolicyFor(true) != Priority || PolicyFor(false) != FIFO {
		t.Fatal("PolicyFor mapping wrong")
	}
	if Priority.String() != "priority" || FIFO.String() != "fifo" {
		t.Fatal("policy names wrong")
	}
}

// TestCompletionWaitBehindHeavy checks the tw wait the queue reports: a
// completion harvested at t=10 while three heavy items are queued, with
// each item taking 5 ns to run from t=10 on, waits 15 ns under FIFO (it
// runs fourth) and 0 under priority (it runs first).
func TestCompletionWaitBehindHeavy(t *testing.T) {
	for _, tt := range []struct {
		p    Policy
		wait int64
		pos  int
	}{{Priority, 0, 0}, {FIFO, 15, 3}} {
		q := NewQueue(8, tt.p)
		for i := uint32(0); i < 3; i++ {
			q.AddHeavy(i, int64(i))
		}
		b := NewBatch()
		q.Add(&b, 5, 10)
		q.AddBatch(&b)
		now := int64(10)
		for pos := 0; q.Len() > 0; pos++ {
			it, _ := q.Next(now)
			if it.Kind == Completion {
				if it.Wait != tt.wait || pos != tt.pos {
					t.Errorf("%s: completion ran %d-th with wait %d, want %d-th with %d", tt.p, pos, it.Wait, tt.pos, tt.wait)
				}
			}
			now += 5
		}
	}
}

// TestQueueMatchesModel runs random sequences of adds (heavy, completion,
// batches of 0 to 3) and runs against a model of the two policies kept in
// plain slices, and checks that every Next, Peek, Len and Pending agree,
// tw waits included: the completion a queue holds off its lists when it
// was added to an empty queue (first) must not change what runs when.
func TestQueueMatchesModel(t *testing.T) {
	type item struct {
		slot uint32
		kind Kind
		at   int64
	}
	const slots = 8
	for _, p := range []Policy{Priority, FIFO} {
		for seed := uint64(1); seed <= 200; seed++ {
			q := NewQueue(slots, p)
			var prio, normal []item // the model: prio is unused under FIFO
			free := make([]uint32, 0, slots)
			for i := uint32(0); i < slots; i++ {
				free = append(free, i)
			}
			x := seed * 0x9E3779B97F4A7C15
			rnd := func(n int) int {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				return int(x % uint64(n))
			}
			take := func() uint32 {
				i := rnd(len(free))
				s := free[i]
				free = append(free[:i], free[i+1:]...)
				return s
			}
			addModel := func(it item) {
				if p == Priority && it.kind == Completion {
					prio = append(prio, it)
				} else {
					normal = append(normal, it)
				}
			}
			for now := int64(0); now < 400; now++ {
				switch op := rnd(5); {
				case op == 0 && len(free) > 0:
					s := take()
					q.AddHeavy(s, now)
					addModel(item{s, Heavy, now})
				case op == 1 && len(free) > 0:
					s := take()
					q.AddCompletion(s, now)
					addModel(item{s, Completion, now})
				case op == 2:
					b := NewBatch()
					for k := rnd(4); k > 0 && len(free) > 0; k-- {
						s := take()
						q.Add(&b, s, now)
						addModel(item{s, Completion, now})
					}
					q.AddBatch(&b)
				default:
					it, ok := q.Next(now)
					var want item
					wantOK := true
					switch {
					case len(prio) > 0:
						want, prio = prio[0], prio[1:]
					case len(normal) > 0:
						want, normal = normal[0], normal[1:]
					default:
						wantOK = false
					}
					if ok != wantOK || ok && (it.Slot != want.slot || it.Kind != want.kind || it.Wait != now-want.at) {
						t.Fatalf("%v seed %d at %d: Next = %+v %v, want %+v %v", p, seed, now, it, ok, want, wantOK)
					}
					if ok {
						free = append(free, it.Slot)
					}
				}
				if q.Len() != len(prio)+len(normal) {
					t.Fatalf("%v seed %d at %d: Len %d, want %d", p, seed, now, q.Len(), len(prio)+len(normal))
				}
				wc, wh := len(prio), 0
				for _, it := range normal {
					if it.kind == Completion {
						wc++
					} else {
						wh++
					}
				}
				if c, h := q.Pending(); c != wc || h != wh {
					t.Fatalf("%v seed %d at %d: Pending %d/%d, want %d/%d", p, seed, now, c, h, wc, wh)
				}
				k, ok := q.Peek()
				switch {
				case len(prio) > 0:
					if !ok || k != Completion {
						t.Fatalf("%v seed %d at %d: Peek %v %v, want completion", p, seed, now, k, ok)
					}
				case len(normal) > 0:
					if !ok || k != normal[0].kind {
						t.Fatalf("%v seed %d at %d: Peek %v %v, want %v", p, seed, now, k, ok, normal[0].kind)
					}
				default:
					if ok {
						t.Fatalf("%v seed %d at %d: Peek %v on an empty queue", p, seed, now, k)
					}
				}
			}
		}
	}
}
