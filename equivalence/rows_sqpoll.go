package equivalence

import "fmt"

// sqpollRows check that sqthread_poll=1 means in gofio what it means in
// fio 3.33 for the job's own thread: fio's getevents never enters the
// kernel to wait there, it busy-polls the CQ ring until the completions
// it wants are in, so the job's thread runs in user space for most of the
// job however fast the I/O is, and its usr CPU says so. A reaper that
// slept in io_uring_enter instead showed a few percent.
var sqpollRows = []Row{
	{Name: "sqpoll/spin-qd1", Ref: "fio's fio_ioring_getevents busy-polls the CQ ring under sqthread_poll=1",
		Args:     args(uringDirect, "--sqthread_poll=1", "--rw=randread", "--bs=4k", "--size=64m", "--iodepth=1", "--time_based", "--runtime=1"),
		Serial:   true,
		NoCounts: true,
		Check:    spinCPU,
	},
}

// spinUsrTol is how far gofio's job-thread usr CPU may stray from fio's
// under sqthread_poll=1, as a factor either way: both spin, and how much
// of a CPU a spinning thread gets beside the kernel's SQ thread depends on
// the machine's load.
const spinUsrTol = 2.0

// spinCPU checks, for each run, that both programs' job threads spent
// more time in user space than in the kernel, and that gofio's usr CPU is
// fio's within a factor of spinUsrTol.
func spinCPU(fio, gofio []*Outcome) []string {
	return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) []string {
		fu, _ := Number(fj, "usr_cpu")
		fs, _ := Number(fj, "sys_cpu")
		gu, _ := Number(gj, "usr_cpu")
		gs, _ := Number(gj, "sys_cpu")
		var diffs []string
		if fu <= fs || gu <= gs {
			diffs = append(diffs, fmt.Sprintf("run %d: usr/sys CPU fio %.1f/%.1f%%, gofio %.1f/%.1f%%: want usr above sys on both (a reap that spins)", i, fu, fs, gu, gs))
		}
		if gu < fu/spinUsrTol || gu > fu*spinUsrTol {
			diffs = append(diffs, fmt.Sprintf("run %d: usr CPU gofio %.1f%% against fio's %.1f%%, want within a factor of %.0f", i, gu, fu, spinUsrTol))
		}
		return diffs
	})
}
