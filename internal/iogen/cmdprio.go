package iogen

import (
	"fmt"

	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/jobfile"
)

// The I/O priority classes of linux/ioprio.h.
const (
	ioprioClassRT    = 1
	ioprioClassShift = 13
)

// Cmdprio picks the ioprio of each read and write from the cmdprio
// options of the io_uring and libaio engines, as fio's engines/cmdprio.c:
// with cmdprio_percentage=P for a direction, P% of its I/Os carry the
// priority (cmdprio_class << 13 | cmdprio), the class defaulting to
// real-time; with cmdprio_bssplit, the I/Os of each listed block size
// carry the priorities of its entries in their percentages. The draws
// come from fio's prio_state generator with fio's seed, so that a job
// gives the same I/Os the same priorities as fio. Engines put the value
// in the SQE's ioprio or the iocb's aio_reqprio.
type Cmdprio struct {
	on     [2]bool // the direction uses cmdprio (and has per-priority stats)
	bssplt bool    // cmdprio_bssplit mode
	pct    [2]uint64
	prio   [2]uint16
	split  [2][]cmdprioBS
	// Prios are the direction's distinct priorities, fio's clat_prio
	// order: the job's own ioprio first, then each cmdprio value as
	// first met.
	Prios [2][]uint16
	idx   [2]uint8 // index in prios of the percentage mode's priority
	rng   fiorand.Frand
}

// cmdprioBS is the entries of one block size (fio's cmdprio_bsprio).
type cmdprioBS struct {
	bs      uint64
	total   uint64
	entries []cmdprioPick
}

type cmdprioPick struct {
	pct  uint64
	prio uint16
	idx  uint8
}

// NewCmdprio returns job j's cmdprio, fio's thread number thread, or an
// error for what fio refuses when the engine starts.
func NewCmdprio(j *jobfile.Job, thread int) (Cmdprio, error) {
	var c Cmdprio
	if !j.Engine().Cmdprio {
		return c, nil
	}
	fs := fiorand.NewSeeds(j, thread)
	c.rng = fiorand.NewFrand(fs.Seed[fiorand.SeedPrioCmds], false)
	split, err := j.CmdprioBSSplit()
	if err != nil {
		return c, fmt.Errorf("%s: %w", j.Name, err)
	}
	c.bssplt = len(split[0]) > 0 || len(split[1]) > 0
	if c.bssplt && (j.CmdprioPercentage[0] > 0 || j.CmdprioPercentage[1] > 0) {
		return c, fmt.Errorf("%s: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive", j.Name)
	}
	own := uint16(0)
	if j.PrioSet {
		own = uint16(j.IOPrio())
	}
	for d := jobfile.DirRead; d <= jobfile.DirWrite; d++ {
		if (d == jobfile.DirRead && !j.RW.HasRead()) || (d == jobfile.DirWrite && !j.RW.HasWrite()) {
			continue
		}
		class := j.CmdprioClass[d]
		if class == 0 {
			class = ioprioClassRT
		}
		implicit := uint16(class<<ioprioClassShift | j.Cmdprio[d])
		if !c.bssplt {
			if j.CmdprioPercentage[d] == 0 {
				continue
			}
			c.on[d], c.Prios[d] = true, []uint16{own}
			c.pct[d], c.prio[d] = uint64(j.CmdprioPercentage[d]), implicit
			c.idx[d] = c.prioIndex(d, implicit)
			continue
		}
		if len(split[d]) == 0 {
			continue
		}
		c.on[d], c.Prios[d] = true, []uint16{own}
		for _, e := range split[d] {
			p := implicit
			if e.IOPrio >= 0 {
				p = uint16(e.IOPrio)
			}
			if n := len(c.split[d]); n == 0 || c.split[d][n-1].bs != e.BS {
				c.split[d] = append(c.split[d], cmdprioBS{bs: e.BS})
			}
			b := &c.split[d][len(c.split[d])-1]
			b.total += uint64(e.Pct)
			b.entries = append(b.entries, cmdprioPick{pct: uint64(e.Pct), prio: p, idx: c.prioIndex(d, p)})
		}
	}
	return c, nil
}

// prioIndex returns the index of priority p among direction d's
// priorities, adding it when new (fio's assign_clat_prio_index).
func (c *Cmdprio) prioIndex(d jobfile.Dir, p uint16) uint8 {
	for i, q := range c.Prios[d] {
		if q == p {
			return uint8(i)
		}
	}
	c.Prios[d] = append(c.Prios[d], p)
	return uint8(len(c.Prios[d]) - 1)
}

// Pick returns the ioprio of the next I/O, of n bytes in direction d, and
// the index of its priority among the direction's (0, the job's own, when
// cmdprio leaves it alone), as fio's fio_cmdprio_set_ioprio: no draw when
// the I/O's percentage is 0, else one draw in 0..99.
func (c *Cmdprio) Pick(d jobfile.Dir, n uint64) (prio uint16, idx uint8) {
	if c.on == [2]bool{} {
		return 0, 0
	}
	return c.pick(d, n)
}

// pick is Pick for a direction that uses cmdprio, kept out of line so
// that a job without cmdprio options pays one inlined test per I/O.
func (c *Cmdprio) pick(d jobfile.Dir, n uint64) (prio uint16, idx uint8) {
	if int(d) >= len(c.on) || !c.on[d] {
		return 0, 0
	}
	if !c.bssplt {
		if c.rng.Between(0, 99) >= c.pct[d] {
			return 0, 0
		}
		return c.prio[d], c.idx[d]
	}
	for i := range c.split[d] {
		b := &c.split[d][i]
		if b.bs != n {
			continue
		}
		r := c.rng.Between(0, 99)
		if r >= b.total {
			return 0, 0
		}
		var sum uint64
		for _, e := range b.entries {
			if sum += e.pct; r < sum {
				return e.prio, e.idx
			}
		}
	}
	return 0, 0
}
