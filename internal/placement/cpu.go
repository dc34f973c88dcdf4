package placement

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/report"
)

// IOThreads returns the CPU time of the kernel threads that worked for
// the job thread tid: its SQPOLL thread (iou-sqp-TID) and the io-wq
// workers of either (iou-wrk-TID, iou-wrk-SQTID: under SQPOLL the SQ
// thread submits, and its workers are named after it), from
// /proc/self/task/*/schedstat, whose first field is on-CPU nanoseconds.
// Those threads run only in the kernel, so the time is reported as system
// time.
func IOThreads(tid int) []report.ThreadCPU {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	type thread struct {
		id   int
		name string
	}
	var threads []thread
	owners := map[string]bool{strconv.Itoa(tid): true}
	for _, e := range ents {
		comm, err := os.ReadFile("/proc/self/task/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		id, _ := strconv.Atoi(e.Name())
		name := strings.TrimSpace(string(comm))
		threads = append(threads, thread{id, name})
		if name == "iou-sqp-"+strconv.Itoa(tid) {
			owners[e.Name()] = true
		}
	}
	var out []report.ThreadCPU
	for _, th := range threads {
		var kind string
		switch {
		case th.name == "iou-sqp-"+strconv.Itoa(tid):
			kind = "sqpoll"
		case strings.HasPrefix(th.name, "iou-wrk-") && owners[strings.TrimPrefix(th.name, "iou-wrk-")]:
			kind = "iowq"
		default:
			continue
		}
		out = append(out, report.ThreadCPU{Kind: kind, TID: th.id, Name: th.name, Sys: schedstatRuntime(th.id)})
	}
	return out
}

// schedstatRuntime returns the on-CPU time of thread tid.
func schedstatRuntime(tid int) time.Duration {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	ns, _ := strconv.ParseUint(f[0], 10, 64)
	return time.Duration(ns)
}

func tvDuration(tv unix.Timeval) time.Duration {
	return time.Duration(tv.Sec)*time.Second + time.Duration(tv.Usec)*time.Microsecond
}

// ThreadUsage fills the job thread's CPU figures from two RUSAGE_THREAD
// readings.
func ThreadUsage(r *report.JobResult, tid int, from, to *unix.Rusage) {
	r.UsrCPU = tvDuration(to.Utime) - tvDuration(from.Utime)
	r.SysCPU = tvDuration(to.Stime) - tvDuration(from.Stime)
	r.Ctx = uint64((to.Nvcsw + to.Nivcsw) - (from.Nvcsw + from.Nivcsw))
	r.Majf = uint64(to.Majflt - from.Majflt)
	r.Minf = uint64(to.Minflt - from.Minflt)
	r.Threads = append(r.Threads, report.ThreadCPU{
		Kind: "job", TID: tid, Name: ThreadName(tid), Usr: r.UsrCPU, Sys: r.SysCPU,
	})
}

func ThreadName(tid int) string {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func GetrusageThread(r *unix.Rusage) {
	_ = unix.Getrusage(unix.RUSAGE_THREAD, r)
}
