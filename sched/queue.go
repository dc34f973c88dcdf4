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
type Queue struct {
	links  *Links
	kind   []Kind
	stamp  []int64
	prio   List // completion items (Priority only)
	normal List // heavy items, or everything under FIFO
	policy Policy
}

// NewQueue returns an empty queue over slots 0..n-1.
func NewQueue(n int, p Policy) *Queue {
	return &Queue{
		links:  NewLinks(n),
		kind:   make([]Kind, n),
		stamp:  make([]int64, n),
		prio:   NewList(),
		normal: NewList(),
		policy: p,
	}
}

// Policy returns the queue's policy.
func (q *Queue) Policy() Policy { return q.policy }

// Len returns the number of queued items.
func (q *Queue) Len() int { return q.prio.n + q.normal.n }

// Pending returns the queued completion and heavy item counts.
func (q *Queue) Pending() (completions, heavy int) {
	if q.policy == Priority {
		return q.prio.n, q.normal.n
	}
	for i := q.normal.head; i != None; i = q.links.next[i] {
		if q.kind[i] == Completion {
			completions++
		} else {
			heavy++
		}
	}
	return completions, heavy
}

// AddCompletion queues a completion item for slot, harvested at now.
func (q *Queue) AddCompletion(slot uint32, now int64) {
	q.kind[slot] = Completion
	q.stamp[slot] = now
	if q.policy == Priority {
		q.links.PushBack(&q.prio, slot)
		return
	}
	q.links.PushBack(&q.normal, slot)
}

// AddHeavy queues a heavy (issue) item for slot at now.
func (q *Queue) AddHeavy(slot uint32, now int64) {
	q.kind[slot] = Heavy
	q.stamp[slot] = now
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
	q.kind[slot] = Completion
	q.stamp[slot] = now
	q.links.PushBack(&b.l, slot)
}

// AddBatch splices every completion of b onto the queue, in order, in O(1),
// and empties b.
func (q *Queue) AddBatch(b *Batch) {
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
	slot, ok := q.links.PopFront(&q.prio)
	if !ok {
		slot, ok = q.links.PopFront(&q.normal)
		if !ok {
			return Item{Slot: None}, false
		}
	}
	return Item{Slot: slot, Kind: q.kind[slot], Wait: now - q.stamp[slot]}, true
}

// Peek returns the kind of the item Next would return, without removing it.
func (q *Queue) Peek() (Kind, bool) {
	if q.prio.n > 0 {
		return q.kind[q.prio.head], true
	}
	if q.normal.n > 0 {
		return q.kind[q.normal.head], true
	}
	return 0, false
}
