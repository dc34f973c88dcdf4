package run

import "github.com/gofio/gofio/jobfile"

// The I/O priority classes of linux/ioprio.h.
const (
	ioprioClassRT    = 1
	ioprioClassShift = 13
)

// cmdprio picks the ioprio of each read and write from the cmdprio
// options of the io_uring and libaio engines, as fio's engines/cmdprio.c
// does in its percentage mode: with cmdprio_percentage=P for a direction,
// P% of its I/Os, drawn at random, carry the priority
// (cmdprio_class << 13 | cmdprio), the class defaulting to real-time.
// Engines put it in the SQE's ioprio or the iocb's aio_reqprio.
type cmdprio struct {
	pct  [2]uint64 // read, write
	prio [2]uint16
	rng  rng
}

func newCmdprio(j *jobfile.Job, seed uint64) cmdprio {
	c := cmdprio{rng: newRNG(seed)}
	if j.IOEngine != "io_uring" && j.IOEngine != "libaio" {
		return c
	}
	for d := jobfile.DirRead; d <= jobfile.DirWrite; d++ {
		class := j.CmdprioClass[d]
		if class == 0 {
			class = ioprioClassRT
		}
		c.pct[d] = uint64(j.CmdprioPercentage[d])
		c.prio[d] = uint16(class<<ioprioClassShift | j.Cmdprio[d])
	}
	return c
}

// pick returns the ioprio of the next I/O in direction d: 0 (none) unless
// the draw falls within the direction's percentage.
func (c *cmdprio) pick(d jobfile.Dir) uint16 {
	if int(d) >= len(c.pct) || c.pct[d] == 0 {
		return 0
	}
	if c.rng.below(100) >= c.pct[d] {
		return 0
	}
	return c.prio[d]
}
