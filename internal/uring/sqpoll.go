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
// runs, so SQPollTID retries for up to 100 ms. Rings created by the same
// thread have threads of the same name; the first one found is returned.
func (r *Ring) SQPollTID() int {
	if r.flags&SetupSQPoll == 0 {
		return 0
	}
	for i := 0; i < 100; i++ {
		if tid := findTask("iou-sqp-" + strconv.Itoa(r.setupTID)); tid != 0 {
			return tid
		}
		time.Sleep(time.Millisecond)
	}
	return 0
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
