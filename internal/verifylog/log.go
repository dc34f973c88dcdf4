package verifylog

import (
	"cmp"
	"slices"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/ivset"
	"github.com/gofio/gofio/jobfile"
)

// Written is one logged write.
type Written struct {
	Off  uint64
	N    uint32
	File int32
	// seq is the write's place in the order the job issued its writes
	// times seqStep; the bits below are its marks (SeqTrimmed and the
	// others).
	Seq uint64
}

// The bits of Written.Seq below the write's place in the log: trim
// verify marks a block on the trim list or trimmed (trimverify.go), and
// a block that left fio's log (read back by verify_backlog, overlapped by
// a later write, or trimmed with trim_verify_zero=0) is out.
const (
	SeqTrimmed = 1 << iota // trimmed
	seqListed              // on the trim list
	seqOut                 // out of the log
	seqStep                // one step of the write's place
)

// Log records the blocks a verifying job wrote in its last pass, as
// fio 3.33's io_hist: for a random job with a random map a list in write
// order; for the others (sequential, norandommap, random_generator=lfsr)
// a set in file and offset order where a write takes every older block it
// overlaps out (iolog.c's log_io_piece). verify_backlog reads the first
// block (the oldest, or the lowest), and so does the verify phase, in
// that order.
type Log struct {
	Ents  []Written
	bytes uint64 // bytes logged in this pass
	Pass  uint64 // bytes in one Pass: the sum of the region sizes
	Seq   uint64 // the next write's place (Written.Seq)
	// rollover says the log starts anew once it holds a pass's bytes: a
	// time_based job's log keeps its last pass only. The others start
	// anew with each verified pass of the job over its files (nextPass).
	Rollover bool
	// passCap, when not 0, ends the pass once the job queued that many
	// bytes of writes and verify_backlog reads in it: fio's do_io stops
	// at its total_bytes (size=, or io_size= for a norandommap random
	// writer, plus size= for verify_backlog, plus the bytes trimwrite
	// trims) counting the I/Os an engine queued, so an asynchronous
	// engine verifies after each of a norandommap job's loops=, and ends
	// a norandommap io_size= job with verify_backlog there. issuedNow
	// counts those bytes.
	PassCap, IssuedNow uint64
	// readBack counts the bytes of the verify reads issued, which count
	// towards io_size= (loop.ioSizeLeft).
	ReadBack uint64
	// head is, for the list, the first entry that may still be in it.
	head int
	// live is fio's io_hist_len less the writes in flight: the entries
	// in the log.
	Live int
	// inFlight counts the writes issued and not yet logged, which fio's
	// io_hist_len counts (it logs a write when issuing it).
	InFlight int
	// sorts says fio keeps the log in offset order. While the writes of
	// the pass come in ascending order, ents[head:] is that order and
	// last is the latest entry (-1 before the first); at the first write
	// out of order the log's blocks move into tree, which keeps them from
	// then on (nil before; spare keeps its memory for the next pass).
	Sorts       bool
	last        int
	tree, spare *ivset.Set
	evicted     []int32
	// flying holds, per slot, the write in flight in it, for a sorted
	// log or verify_backlog (nil for others): fio logs a write when it
	// issues it, so a write issued later takes a block out of the log
	// even when it is in flight as the block completes, and
	// verify_backlog waits while the write of the log's first block, as
	// fio orders it, is in flight.
	Flying []FlyingWrite
	// lastRead says the last I/O to complete was a verify_backlog read
	// (fio's last_ddir == DDIR_READ), which holds off a new batch of
	// verify_backlog reads or of trims.
	LastRead bool
	// finished says finish turned ents into the verify phase's reads.
	finished bool
	// trim is the job's trim verify state (trimverify.go); nil without.
	Trim *TrimList
}

// FlyingWrite is a write in flight in a slot: its place (Written.Seq),
// file, offset and length.
type FlyingWrite struct {
	Seq  uint64
	Off  uint64
	N    uint32
	File int32
	busy bool
	// overtaken says a write issued later overlaps it.
	overtaken bool
}

// New returns the log of a job writing regions with blocks of at
// least minBS; sorted says fio keeps it in offset order.
func New(regions []iogen.Region, minBS uint64, sorted bool) *Log {
	w := &Log{}
	for _, r := range regions {
		w.Pass += r.Size
	}
	n := uint64(1024)
	if minBS > 0 && w.Pass/minBS+1 < 1<<16 {
		n = w.Pass/minBS + 1
	}
	w.Ents = make([]Written, 0, n)
	w.Sorts, w.last = sorted, -1
	return w
}

// Sorted says whether fio 3.33 sorts job j's verify log: all but the
// random jobs with a random map (iolog.c's file_randommap: norandommap
// and random_generator=lfsr have none).
func Sorted(j *jobfile.Job) bool {
	return !j.RW.IsRandom() || j.NoRandomMap || j.RandomGenerator == "lfsr"
}

// Add logs a completed write that the log did not see issued (verify_only's
// PassCap is fio's do_io total_bytes for job j with pass bytes in each of
// its loops passes (Log.PassCap).
func PassCap(j *jobfile.Job, pass, loops uint64) uint64 {
	c := pass
	if j.RW.IsRandom() && j.NoRandomMap {
		c = max(c, j.IOSize)
	}
	if j.VerifyBacklog > 0 {
		c += pass
	}
	if j.RW == jobfile.RWTrimWrite || j.RW == jobfile.RWRandTrimWrite {
		c += cmp.Or(j.IOSize, pass) * loops
	}
	return c
}

// replay).
func (w *Log) Add(file int32, off uint64, n uint32) {
	seq := w.Seq
	w.Seq += seqStep
	w.addAt(file, off, n, seq, false)
}

// Completed logs the write that completed in slot si: in a sorted log it
// is out at once when a write issued after it overlaps it, logged or in
// flight, as fio's log holds the one issued last.
func (w *Log) Completed(si uint32, file int32, off uint64, n uint32) {
	if w.Flying == nil || !w.Flying[si].busy {
		w.Add(file, off, n)
		w.logged(si, false)
		return
	}
	f := &w.Flying[si]
	f.busy = false
	w.addAt(file, off, n, f.Seq, f.overtaken)
	w.logged(si, f.overtaken)
}

// addAt logs a completed write issued in place seq (out of the log when
// beaten), starting a new pass when this one is full.
func (w *Log) addAt(file int32, off uint64, n uint32, seq uint64, beaten bool) {
	if w.Rollover && w.Pass > 0 && w.bytes >= w.Pass && (w.Trim == nil || !w.Trim.Extending) {
		w.Reset(false)
	}
	i := len(w.Ents)
	w.Ents = append(w.Ents, Written{Off: off, N: n, File: file, Seq: seq})
	w.bytes += uint64(n)
	if beaten {
		w.Ents[i].Seq |= seqOut
		return
	}
	w.Live++
	if w.Sorts {
		w.addSorted(i)
	}
}

// addSorted puts entry i into a sorted log: it takes the blocks it
// overlaps out, or is out itself when one of them was issued after it.
func (w *Log) addSorted(i int) {
	e := &w.Ents[i]
	inOrder, beaten := w.evict(e.File, e.Off, e.N, i, place(e.Seq))
	switch {
	case beaten:
		w.takeOut(i)
	case inOrder:
		w.last = i
	default:
		w.tree.Insert(e.File, e.Off, e.N, int32(i), nil)
	}
}

// place returns the place bits of a Written.Seq.
func place(seq uint64) uint64 { return seq &^ (seqStep - 1) }

// evict takes the blocks of a sorted log's first upto entries that the n
// bytes at off in file overlap out of it, as fio's log_io_piece does
// when it logs a write at issue, but those issued after place seq: when
// there are such, it reports beaten. inOrder says the bytes come after
// every block of the log still in order (no tree); otherwise the log has
// its tree.
func (w *Log) evict(file int32, off uint64, n uint32, upto int, seq uint64) (inOrder, beaten bool) {
	if w.tree == nil {
		if w.last < 0 {
			return true, false
		}
		p := &w.Ents[w.last]
		if p.File < file || p.File == file && p.Off < off {
			// Every block before p ends before p starts.
			if p.Seq&seqOut == 0 && p.File == file && p.Off+uint64(p.N) > off {
				if place(p.Seq) > seq {
					return true, true
				}
				w.takeOut(w.last)
			}
			return true, false
		}
		w.tree = w.spare
		if w.tree == nil {
			w.tree = &ivset.Set{}
		}
		for k := w.head; k < upto; k++ {
			if b := &w.Ents[k]; b.Seq&seqOut == 0 {
				w.tree.Insert(b.File, b.Off, b.N, int32(k), nil)
			}
		}
	}
	w.evicted = w.tree.RemoveOverlaps(file, off, n, w.evicted[:0])
	for _, k := range w.evicted {
		if place(w.Ents[k].Seq) > seq {
			beaten = true
		}
	}
	for _, k := range w.evicted {
		if b := &w.Ents[k]; beaten && place(b.Seq) > seq {
			w.tree.Insert(b.File, b.Off, b.N, k, nil) // it stays
			continue
		}
		w.takeOut(int(k))
	}
	return false, beaten
}

// takeOut marks entry i out of the log and off the trim list (fio's
// remove_trim_entry); a sorted log's caller took it out of the set.
func (w *Log) takeOut(i int) {
	e := &w.Ents[i]
	e.Seq |= seqOut
	w.Live--
	if e.Seq&seqListed != 0 {
		e.Seq &^= seqListed
		w.Trim.Listed--
	}
}

// PopFirst takes the first block out of the log, as fio's
// get_next_verify: the lowest of a sorted log, the oldest of a list.
func (w *Log) PopFirst() (Written, bool) {
	var i int
	if w.tree != nil {
		k, ok := w.tree.PopFirst()
		if !ok {
			return Written{}, false
		}
		i = int(k)
	} else {
		for w.head < len(w.Ents) && w.Ents[w.head].Seq&seqOut != 0 {
			w.head++
		}
		if w.head == len(w.Ents) {
			return Written{}, false
		}
		i = w.head
	}
	w.takeOut(i)
	return w.Ents[i], true
}

// Reset empties the log for a new pass; reseed says the pass is a new
// loop (loops=), which reseeds trim verify's generator.
func (w *Log) Reset(reseed bool) {
	w.Ents, w.bytes, w.head, w.Live, w.finished, w.LastRead = w.Ents[:0], 0, 0, 0, false, false
	w.IssuedNow = 0
	w.dropTree()
	if w.Trim != nil {
		w.Trim.newPass(reseed)
	}
}

// Finish turns the log into the verify phase's reads: the blocks still
// in it, lowest first in a sorted log, in write order in a list.
func (w *Log) Finish() {
	if w.finished {
		return
	}
	w.finished = true
	if w.tree == nil {
		w.Ents = slices.DeleteFunc(w.Ents[w.head:], func(e Written) bool { return e.Seq&seqOut != 0 })
		w.head, w.last = 0, -1
		return
	}
	w.evicted = w.tree.AppendIDs(w.evicted[:0])
	out := make([]Written, len(w.evicted))
	for i, k := range w.evicted {
		out[i] = w.Ents[k]
	}
	w.Ents, w.head = out, 0
	w.dropTree()
}

// dropTree empties a sorted log's tree, keeping its memory, for a log
// whose writes start in order again.
func (w *Log) dropTree() {
	if w.tree != nil {
		w.tree.Reset()
		w.spare, w.tree = w.tree, nil
	}
	w.last = -1
}

// FirstInFlight says whether fio's log would start with a write in
// flight, where its get_next_verify finds nothing: a write in flight
// below the log's first block (sorted), or issued before it (a list).
func (w *Log) FirstInFlight() bool {
	if w.Flying == nil || w.InFlight == 0 {
		return false
	}
	var first *Written
	if w.tree != nil {
		k, _ := w.tree.First()
		first = &w.Ents[k]
	} else {
		for w.head < len(w.Ents) && w.Ents[w.head].Seq&seqOut != 0 {
			w.head++
		}
		first = &w.Ents[w.head]
	}
	for k := range w.Flying {
		g := &w.Flying[k]
		if !g.busy || g.overtaken {
			continue
		}
		if w.Sorts && (g.File < first.File || g.File == first.File && g.Off < first.Off) || !w.Sorts && g.Seq < place(first.Seq) {
			return true
		}
	}
	return false
}
