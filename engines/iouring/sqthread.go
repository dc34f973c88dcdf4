package iouring

import (
	"os"
	"strconv"
	"strings"
)

// SQThread returns the thread id of the kernel's SQPOLL thread serving the
// ring, as the ring's /proc/self/fdinfo gives it ("SqThread:"), 0 without
// one: the thread itself, where its name (iou-sqp-TID) may also be that of
// an earlier ring's thread still exiting on a job thread reused.
func (e *Engine) SQThread() int {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(e.ring.Fd()))
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
