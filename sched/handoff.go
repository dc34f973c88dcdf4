package sched

import (
	"sync"
	"sync/atomic"
)

// Handoff moves slot indices from producer goroutines to one consumer,
// for example from a job loop to the goroutine that submits for it when the
// kernel refuses SQPOLL. Push may be called from any goroutine; TakeAll
// only from the consumer. Items come out in the order they were pushed.
type Handoff interface {
	// Push hands slot i over.
	Push(i uint32)
	// TakeAll moves every handed-over slot onto dst (appended, in push
	// order) and returns how many moved. dst is linked through the
	// handoff's links: walk it with PopFront.
	TakeAll(dst *List) int
	// PopFront removes the first slot of a list filled by TakeAll.
	PopFront(l *List) (uint32, bool)
	// Empty reports whether nothing is waiting to be taken. A consumer
	// about to sleep stores its "asleep" flag, then checks Empty; a
	// producer pushes, then loads the flag: one of the two sees the other.
	Empty() bool
}

// LockedList is a Handoff guarded by its own mutex, separate from the slot
// pool's state, as io-wq split work_list out of the big wqe->lock. Its
// links may be shared with the consumer's other lists, since a slot is on
// one list at a time; the consumer must not touch a slot's link while the
// slot is on the handoff.
type LockedList struct {
	mu    sync.Mutex
	links *Links
	l     List
	n     atomic.Int32 // l.n, stored under mu, read by Empty without it
}

// NewLockedList returns an empty locked handoff over links.
func NewLockedList(links *Links) *LockedList {
	return &LockedList{links: links, l: NewList()}
}

// Push appends slot i.
func (h *LockedList) Push(i uint32) {
	h.mu.Lock()
	h.links.PushBack(&h.l, i)
	h.n.Store(int32(h.l.n))
	h.mu.Unlock()
}

// PopFront removes the first slot of a list filled by TakeAll.
func (h *LockedList) PopFront(l *List) (uint32, bool) { return h.links.PopFront(l) }

// Empty reports whether no slot waits on h. It takes no lock, so that a
// consumer polling it does not contend with the producers.
func (h *LockedList) Empty() bool { return h.n.Load() == 0 }

// TakeAll splices every pushed slot onto dst.
func (h *LockedList) TakeAll(dst *List) int {
	h.mu.Lock()
	n := h.l.n
	h.links.Splice(dst, &h.l)
	h.n.Store(0)
	h.mu.Unlock()
	return n
}

// LockFreeList is a Handoff built like the kernel's llist: Push is a
// compare-and-swap onto a head index (newest first), TakeAll swaps the
// whole chain out and reverses it to push order. Its next links are atomic
// words of its own, so producers and the consumer never share a lock.
type LockFreeList struct {
	head atomic.Uint32
	next []atomic.Uint32
}

// NewLockFreeList returns an empty lock-free handoff over slots 0..n-1.
func NewLockFreeList(n int) *LockFreeList {
	h := &LockFreeList{next: make([]atomic.Uint32, n)}
	h.head.Store(None)
	return h
}

// Push adds slot i (llist_add).
func (h *LockFreeList) Push(i uint32) {
	for {
		old := h.head.Load()
		h.next[i].Store(old)
		if h.head.CompareAndSwap(old, i) {
			return
		}
	}
}

// Empty reports whether no slot waits on h.
func (h *LockFreeList) Empty() bool { return h.head.Load() == None }

// TakeAll moves every pushed slot onto dst in push order
// (llist_del_all followed by llist_reverse_order). dst is linked through
// h's own links: walk it with h.PopFront.
func (h *LockFreeList) TakeAll(dst *List) int {
	cur := h.head.Swap(None)
	if cur == None {
		return 0
	}
	prev := None
	tail := cur
	n := 0
	for cur != None {
		nx := h.next[cur].Load()
		h.next[cur].Store(prev)
		prev = cur
		cur = nx
		n++
	}
	if dst.n != 0 {
		h.next[dst.tail].Store(prev)
		dst.tail = tail
		dst.n += n
	} else {
		*dst = List{head: prev, tail: tail, n: n}
	}
	return n
}

// PopFront removes the first slot of a list filled by TakeAll.
func (h *LockFreeList) PopFront(l *List) (uint32, bool) {
	if l.n == 0 {
		return None, false
	}
	i := l.head
	l.head = h.next[i].Load()
	l.n--
	if l.n == 0 {
		l.head, l.tail = None, None
	}
	return i, true
}

// NewHandoff returns a hand-off over slots 0..n-1: a LockFreeList when
// lockFree (tw_list=lockfree), else a LockedList with links of its own
// (tw_list=locked).
func NewHandoff(n int, lockFree bool) Handoff {
	if lockFree {
		return NewLockFreeList(n)
	}
	return NewLockedList(NewLinks(n))
}
