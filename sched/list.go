package sched

// None marks the end of a list and an empty head or tail.
const None = ^uint32(0)

// List is an intrusive singly linked FIFO list of slot indices. The next
// links live in a Links array shared by every list over the same slots, so a
// list is three words and adding, popping and splicing are O(1) with no
// allocation. A slot may be on at most one list of a Links at a time.
type List struct {
	head, tail uint32
	n          int
}

// Links holds the next link of every slot.
type Links struct {
	next []uint32
}

// NewLinks returns links for slots 0..n-1.
func NewLinks(n int) *Links {
	l := &Links{next: make([]uint32, n)}
	for i := range l.next {
		l.next[i] = None
	}
	return l
}

// Cap returns the number of slots the links cover.
func (k *Links) Cap() int { return len(k.next) }

// Reset empties l.
func (l *List) Reset() { l.head, l.tail, l.n = None, None, 0 }

// Len returns the number of slots on l.
func (l *List) Len() int { return l.n }

// Empty reports whether l holds no slot. The zero List is not empty-safe:
// call Reset (or use NewList) before first use.
func (l *List) Empty() bool { return l.n == 0 }

// Head returns the first slot, or None.
func (l *List) Head() uint32 { return l.head }

// NewList returns an empty list.
func NewList() List { return List{head: None, tail: None} }

// PushBack appends slot i to l.
func (k *Links) PushBack(l *List, i uint32) {
	k.next[i] = None
	if l.n == 0 {
		l.head = i
	} else {
		k.next[l.tail] = i
	}
	l.tail = i
	l.n++
}

// PushFront puts slot i at the head of l.
func (k *Links) PushFront(l *List, i uint32) {
	if l.n == 0 {
		k.next[i] = None
		l.tail = i
	} else {
		k.next[i] = l.head
	}
	l.head = i
	l.n++
}

// PopFront removes and returns the first slot of l; ok is false when l is
// empty.
func (k *Links) PopFront(l *List) (i uint32, ok bool) {
	if l.n == 0 {
		return None, false
	}
	next := k.next // one bounds check for the load and the store
	i = l.head
	l.head = next[i] // None when i was the tail
	next[i] = None
	l.n--
	if l.n == 0 {
		l.tail = None
	}
	return i, true
}

// Splice appends every slot of src to dst, in order, and empties src.
func (k *Links) Splice(dst, src *List) {
	if src.n == 0 {
		return
	}
	if dst.n == 0 {
		*dst = *src
	} else {
		k.next[dst.tail] = src.head
		dst.tail = src.tail
		dst.n += src.n
	}
	src.Reset()
}

// Merge returns first followed by second as one list, leaving both empty.
// It is the wq_list_merge of the priority tw patch: the priority list is
// run ahead of the normal one.
func (k *Links) Merge(first, second *List) List {
	out := NewList()
	k.Splice(&out, first)
	k.Splice(&out, second)
	return out
}

// Next returns the slot after i on its list, or None.
func (k *Links) Next(i uint32) uint32 { return k.next[i] }

// Reverse reverses l in place (used after a lock-free push-all take, whose
// order is newest first).
func (k *Links) Reverse(l *List) {
	prev := None
	cur := l.head
	l.tail = cur
	for cur != None {
		nx := k.next[cur]
		k.next[cur] = prev
		prev = cur
		cur = nx
	}
	l.head = prev
}
