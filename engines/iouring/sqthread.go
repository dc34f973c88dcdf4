package iouring

// SQThread returns the thread id of the kernel's SQPOLL thread serving the
// ring, 0 without one (uring.Ring.SQPollTID: the ring's fdinfo, once the
// thread runs).
func (e *Engine) SQThread() int {
	if !e.sqpoll || e.closed {
		return 0
	}
	return e.ring.SQPollTID()
}
