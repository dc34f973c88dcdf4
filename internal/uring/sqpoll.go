package uring

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// SQPollTID returns the thread id of the kernel's SQPOLL thread for this
// ring (named iou-sqp-<SetupTID> in /proc/self/task), or 0 when the ring
// has none or it was not found. The new thread names itself once it first
// runs, which on a loaded machine can take a while, so SQPollTID looks for
// up to 2 s. Rings created by the same thread have threads of the same
// name; the first one found is returned.
func (r *Ring) SQPollTID() int {
	if r.flags&SetupSQPoll == 0 {
		return 0
	}
	for deadline := time.Now().Add(2 * time.Second); ; {
		if tid := findTask("iou-sqp-" + strconv.Itoa(r.setupTID)); tid != 0 {
			return tid
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(time.Millisecond)
	}
}

// findTask returns the id of the first thread of this process named want.
func findTask(want string) int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		comm, err := os.ReadFile("/proc/self/task/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		if strings.TrimSpace(string(comm)) == want {
			tid, _ := strconv.Atoi(e.Name())
			return tid
		}
	}
	return 0
}
