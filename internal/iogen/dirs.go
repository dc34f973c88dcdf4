package iogen

// This file holds the choice of each I/O's direction: rwmixread, rw=...:N
// sequences and percentage_random.

import "github.com/gofio/gofio/jobfile"

func (g *Offsets) Uses(d jobfile.Dir) bool { return usesDir(g.RW, d) }

// usesDir reports whether pattern rw issues I/O in direction d.
func usesDir(rw jobfile.RW, d jobfile.Dir) bool {
	switch d {
	case jobfile.DirRead:
		return rw.HasRead()
	case jobfile.DirWrite:
		return rw.HasWrite()
	}
	return rw.HasTrim()
}

// Dir picks the direction of the next I/O as fio's get_rw_ddir: a mixed
// Job draws a new direction (rwmixread percent reads) once it has issued
// its share in the current one.
func (g *Offsets) Dir() jobfile.Dir {
	if g.hasPending {
		return g.pending
	}
	g.pending, g.hasPending = g.drawDir(), true
	return g.pending
}

// SetDir makes d the direction of the next I/O and of the rwmix cycle,
// as fio's get_rw_ddir keeps the direction rate_ddir switched to.
func (g *Offsets) SetDir(d jobfile.Dir) {
	g.pending, g.hasPending, g.rwmixDir = d, true, d
}

func (g *Offsets) drawDir() jobfile.Dir {
	if !g.mixed {
		return g.oneDir
	}
	if g.issues[g.rwmixDir] >= g.rwmixIssues {
		d := jobfile.DirWrite
		if g.rMix.Between(1, 100) <= g.RWMix[jobfile.DirRead] {
			d = jobfile.DirRead
		}
		if d != g.rwmixDir {
			// fio's set_rwmix_bytes: the other direction's share of
			// what this one issued so far.
			g.rwmixIssues = g.issues[g.rwmixDir] * g.RWMix[g.rwmixDir^1] / 100
		}
		g.rwmixDir = d
	}
	return g.rwmixDir
}

// doRandom is fio's should_do_random: whether a random pattern's next
// I/O in direction d takes a random offset (percentage_random).
func (g *Offsets) doRandom(d jobfile.Dir) bool {
	if g.seqPct[d] == 0 {
		return true
	}
	return g.rSeq[d].Between(1, 100) <= 100-g.seqPct[d]
}
