package uring

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// SQPollTID returns the thread id of the kernel's SQPOLL thread serving
// this ring, as the ring's /proc/self/fdinfo gives it ("SqThread:"), or 0
// when the ring has none or its thread did not run within 2 s. Until the
// new thread first runs, fdinfo names the thread that made the ring, so
// SQPollTID waits for another (on a loaded machine that can take a while:
// at load 25 on 2 vCPUs 100 ms missed it); the thread's name (iou-sqp-TID)
// is no proof, since an earlier ring's thread still exiting on a reused
// creator bears it too. A running thread is found at once.
func (r *Ring) SQPollTID() int {
	if r.flags&SetupSQPoll == 0 {
		return 0
	}
	for deadline := time.Now().Add(2 * time.Second); ; {
		if tid := r.fdinfoSQThread(); tid > 0 && tid != r.setupTID {
			return tid
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(time.Millisecond)
	}
}

// fdinfoSQThread reads the ring's SQ thread from its fdinfo, 0 without.
func (r *Ring) fdinfoSQThread() int {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(r.fd))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "SqThread:"); ok {
			tid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || tid < 0 {
				return 0
			}
			return tid
		}
	}
	return 0
}
