package sched

// Item is one task-work item taken from a Queue.
type Item struct {
	Slot uint32
	Kind Kind
	// Wait is the time the item spent queued: the now given to Next minus
	// the now given when it was added (for a completion, harvest to run:
	// the tw wait).
	Wait int64
}

// Queue holds the task-work items of one event loop over n slots. Each
// slot carries at most one item at a time. Under Priority, completion items
// go on a priority list that runs before the normal list of heavy items;
// under FIFO both kinds share one list in arrival order. Queue is not safe
// for concurrent use: one goroutine owns it, as one task owns its tw lists.
//
// A completion added to an empty queue is held in first, off the lists: it
// is the oldest item queued under FIFO and the oldest completion under
// Priority, so it runs before anything added after it under both
// policies, and the loop at depth 1, which adds one completion and runs
// it, pays no list push and pop.
type Queue struct {
	links   *Links
	items   []queued // per slot: the kind and add time of its item
	prio    List     // completion items (Priority only)
	normal  List     // heavy items, or everything under FIFO
	first   uint32
	firstAt int64 // when first was added
	n       int   // items queued, first included
	policy  Policy
}

// queued is what a Queue keeps of a slot's item besides its list link: one
// array, so that adding and taking an item index it once.
type queued struct {
	at   int64
	kind Kind
}

// NewQueue returns an empty queue over slots 0..n-1.
func NewQueue(n int, p Policy) *Queue {
	return &Queue{
		links:  NewLinks(n),
		items:  make([]queued, n),
		prio:   NewList(),
		normal: NewList(),
		first:  None,
		policy: p,
	}
}

// Policy returns the queue's policy.
func (q *Queue) Policy() Policy { return q.policy }

// Len returns the number of queued items.
func (q *Queue) Len() int { return q.n }

// Pending returns the queued completion and heavy item counts.
func (q *Queue) Pending() (completions, heavy int) {
	if q.first != None {
		completions++
	}
	if q.policy == Priority {
		return completions + q.prio.n, q.normal.n
	}
	for i := q.normal.head; i != None; i = q.links.next[i] {
		if q.items[i].kind == Completion {
			completions++
		} else {
			heavy++
		}
	}
	return completions, heavy
}

// AddCompletion queues a completion item for slot, harvested at now.
func (q *Queue) AddCompletion(slot uint32, now int64) {
	if q.n == 0 {
		q.first, q.firstAt, q.n = slot, now, 1
		return
	}
	q.pushCompletion(slot, now)
}

// pushCompletion puts a completion item on its list: AddCompletion's
// path for a queue that was not empty, out of line so that the other
// inlines.
func (q *Queue) pushCompletion(slot uint32, now int64) {
	q.items[slot] = queued{at: now, kind: Completion}
	q.n++
	if q.policy == Priority {
		q.links.PushBack(&q.prio, slot)
		return
	}
	q.links.PushBack(&q.normal, slot)
}

// AddHeavy queues a heavy (issue) item for slot at now.
func (q *Queue) AddHeavy(slot uint32, now int64) {
	q.items[slot] = queued{at: now, kind: Heavy}
	q.n++
	q.links.PushBack(&q.normal, slot)
}

// Batch collects the completions of one harvest so that they enter the
// queue together with one splice, as the irq path adds a batch of tw items.
type Batch struct {
	l List
}

// NewBatch returns an empty batch.
func NewBatch() Batch { return Batch{l: NewList()} }

// Len returns the number of completions in the batch.
func (b *Batch) Len() int { return b.l.n }

// Add puts a completion for slot, harvested at now, on the batch.
func (q *Queue) Add(b *Batch, slot uint32, now int64) {
	q.items[slot] = queued{at: now, kind: Completion}
	q.links.PushBack(&b.l, slot)
}

// AddBatch splices every completion of b onto the queue, in order, in O(1),
// and empties b.
func (q *Queue) AddBatch(b *Batch) {
	if b.l.n == 1 && q.n == 0 {
		q.first, q.firstAt, q.n = b.l.head, q.items[b.l.head].at, 1
		b.l.Reset()
		return
	}
	q.n += b.l.n
	if q.policy == Priority {
		q.links.Splice(&q.prio, &b.l)
		return
	}
	q.links.Splice(&q.normal, &b.l)
}

// Next removes the item to run now: under Priority the oldest completion if
// any, else the oldest heavy item; under FIFO the oldest item. ok is false
// when the queue is empty.
func (q *Queue) Next(now int64) (it Item, ok bool) {
	if slot := q.first; slot != None {
		q.first = None
		q.n--
		return Item{Slot: slot, Kind: Completion, Wait: now - q.firstAt}, true
	}
	if q.n == 0 {
		return Item{Slot: None}, false
	}
	q.n--
	slot, ok := q.links.PopFront(&q.prio)
	if !ok {
		slot, _ = q.links.PopFront(&q.normal)
	}
	qi := &q.items[slot]
	return Item{Slot: slot, Kind: qi.kind, Wait: now - qi.at}, true
}

// Peek returns the kind of the item Next would return, without removing it.
func (q *Queue) Peek() (Kind, bool) {
	if q.first != None {
		return Completion, true
	}
	if q.prio.n > 0 {
		return q.items[q.prio.head].kind, true
	}
	if q.normal.n > 0 {
		return q.items[q.normal.head].kind, true
	}
	return 0, false
}
