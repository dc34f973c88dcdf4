package run

import (
	"errors"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/joberr"
	"golang.org/x/sys/unix"
)

// submit hands every queued request to the engine and stamps them: one
// issue time per submit batch, as fio's commit does.
func (l *loop) submit() {
	var syncT int64 // the issue stamp: before Submit for sync engines, after it for the others
	if l.syncIO {
		syncT = l.clock()
		for i := 0; i < l.pN; i++ {
			l.slots[l.pendingAt(i)].issue = syncT
		}
	}
	if l.hang != nil {
		// Stamped before the call: a submit may itself sleep in the
		// I/O (FUSE issued inline, psync).
		t := l.clock()
		for i := 0; i < l.pN; i++ {
			l.hang.issue[l.pendingAt(i)].Store(t)
		}
	}
	l.callBegin()
	n, err := l.eng.Submit()
	l.callEnd()
	if l.hang != nil {
		// Only what the engine accepted is in flight: a request it
		// refused (a full ring, an error) stays pending, and the next
		// submit stamps it again.
		from := n
		if err != nil {
			from = 0
		}
		for i := max(from, 0); i < l.pN; i++ {
			l.hang.issue[l.pendingAt(i)].Store(0)
		}
	}
	if err != nil {
		l.fail(joberr.ErrnoOf(err, unix.EIO), "io_uring_enter submit", err)
		return
	}
	if n == 0 {
		if l.syncIO && !l.noMarks() || !l.syncIO && l.markSubmit {
			l.res.SubmitCalls++
			l.res.Submit[0]++
		}
		if l.inflight == 0 {
			l.fail(int(unix.EBUSY), "submit", errors.New("engine accepted no request with none in flight"))
			return
		}
		l.reap(1)
		return
	}
	acct := !l.ramping
	if l.syncIO {
		// Stamped before Submit; no slat, as fio's sync engines.
		for i := 0; i < n; i++ {
			l.popPending()
		}
	} else {
		syncT = l.stampIssued(n, acct)
	}
	l.inflightAt(syncT)
	l.inflight += n
	switch {
	case !l.syncIO:
		// The engine's commit marks what it submitted: the trims were
		// counted at queue.
		trims := min(l.trimsPending, n)
		l.trimsPending -= trims
		if k := n - trims; k > 0 && l.markSubmit {
			l.res.SubmitCalls++
			l.res.Submit[batchBucket(k)]++
		}
	case acct:
		if !l.noMarks() {
			l.res.SubmitCalls++
			l.res.Submit[batchBucket(n)]++
		}
		l.res.IODepth[depthBucket(l.inflight)] += uint64(n)
	}
}

// stampIssued pops the n submitted slots off the pending ring and stamps
// them with one issue time, which it returns, accounting slat for first
// submissions of reads and writes when acct (not ramping) and slat is on.
func (l *loop) stampIssued(n int, acct bool) int64 {
	t := l.clock()
	slat := acct && !l.noSlat
	for i := 0; i < n; i++ {
		si := l.popPending()
		s := &l.slots[si]
		if s.op != engines.OpTrim || !l.trimAtQueue {
			s.issue = t // a trim was issued at Queue
		}
		if l.hang != nil {
			l.hang.issue[si].Store(t)
		}
		if slat && !s.ramp && s.done == 0 && s.retries == 0 && s.op <= engines.OpWrite {
			v := t - s.start
			s.slat = v
			ds := &l.res.Dirs[s.dir]
			ds.Slat.Add(uint64(v))
			ds.SlatHist.Add(uint64(v))
			if l.logs != nil {
				l.logs.Issued(uint64((t-l.statsStart)/1000000), s.dir, uint64(v), uint64(s.length), s.off)
			}
		}
	}
	return t
}
