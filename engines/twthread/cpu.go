package twthread

import (
	"sync"

	"golang.org/x/sys/unix"
)

// modelCPUs are the CPUs the SQPOLL goroutines of this process are pinned
// to when sqthread_poll_cpu names none, so that the goroutines of several
// jobs take different ones.
var modelCPUs = struct {
	sync.Mutex
	held map[int]bool
}{held: map[int]bool{}}

// holdCPU picks the CPU a goroutine is pinned to when sqthread_poll_cpu
// names none: the highest of the calling thread's allowed CPUs that no
// other SQPOLL goroutine holds. It returns false when the thread may run
// on fewer than two CPUs (pinning would leave the job's thread nowhere
// else to go) or every one is held.
//
// Pinned, the goroutine polls on one CPU and the job's thread, left to
// the scheduler, runs on another: unpinned, the two land on one CPU or
// on two from run to run, and a run's mean latency with them (11-14 us
// or 34-45 us at iodepth 1 on a 2-CPU VM, bench/results.md), which is
// noise in every comparison of the model's policies.
func holdCPU() (int, bool) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() < 2 {
		return -1, false
	}
	modelCPUs.Lock()
	defer modelCPUs.Unlock()
	for cpu := len(set)*64 - 1; cpu >= 0; cpu-- {
		if set.IsSet(cpu) && !modelCPUs.held[cpu] {
			modelCPUs.held[cpu] = true
			return cpu, true
		}
	}
	return -1, false
}

// releaseCPU gives back a CPU holdCPU returned.
func releaseCPU(cpu int) {
	modelCPUs.Lock()
	delete(modelCPUs.held, cpu)
	modelCPUs.Unlock()
}
