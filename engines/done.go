package engines

// DoneQueue is a fixed-size FIFO of finished requests, for engines that
// complete requests synchronously at Submit (null, psync) and hand them out
// at Reap. It allocates only when made.
type DoneQueue struct {
	buf  []Completion
	head int
	n    int
}

// NewDoneQueue returns a queue with room for depth completions.
func NewDoneQueue(depth int) DoneQueue {
	return DoneQueue{buf: make([]Completion, depth)}
}

// Len returns the number of completions waiting.
func (q *DoneQueue) Len() int { return q.n }

// Push appends a completion; the caller keeps Len below the depth.
func (q *DoneQueue) Push(c Completion) {
	i := q.head + q.n // both below len(q.buf): no division
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	q.buf[i] = c
	q.n++
}

// Pop moves up to len(out) completions into out, oldest first, and
// returns how many it moved.
func (q *DoneQueue) Pop(out []Completion) int {
	n := 0
	for n < len(out) && q.n > 0 {
		out[n] = q.buf[q.head]
		q.head++
		if q.head == len(q.buf) {
			q.head = 0
		}
		q.n--
		n++
	}
	return n
}
