package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ETA prints fio's status line ("Jobs: 1 (f=1): [r(1)][42.0%][r=1024MiB/s]
// [r=262k IOPS][eta 00m:05s]") from the jobs' Progress, refreshed in place
// with '\r' and padded with spaces over a longer previous line. Tick is
// pure (it takes the elapsed time), so tests drive it directly; Run drives
// it from a ticker in its own goroutine. The CLI chooses the writer
// (stderr when it is a terminal or with --eta=always).
type ETA struct {
	mu       sync.Mutex
	w        io.Writer
	jobs     []*Progress
	kbBase   int
	unitBase int
	prevLen  int
	last     time.Duration
	lastB    [3]uint64
	lastIOs  [3]uint64
	printed  bool
	// NewlineEvery, when set, ends the status line with a newline once
	// that much time passed since the last one (fio's --eta-newline), so
	// a log keeps a line per period.
	NewlineEvery time.Duration
	lastNewline  time.Duration
}

// NewETA returns an ETA printer for jobs writing to w, with the kb_base and
// unit_base of the first job (1024 and 0 by default).
func NewETA(w io.Writer, jobs []*Progress, kbBase, unitBase int) *ETA {
	if kbBase == 0 {
		kbBase = 1024
	}
	return &ETA{w: w, jobs: jobs, kbBase: kbBase, unitBase: unitBase}
}

// Run calls Tick every interval until stop is closed, then ends the line
// with a newline if anything was printed.
func (e *ETA) Run(stop <-chan struct{}, start time.Time, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			e.Finish()
			return
		case now := <-t.C:
			e.Tick(now.Sub(start))
		}
	}
}

// Finish ends the status line so later output starts on a fresh line.
func (e *ETA) Finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.printed {
		fmt.Fprint(e.w, "\n")
		e.printed = false
	}
}

// Tick writes one status line for the given time since the run started.
// Rates are measured since the previous Tick.
func (e *ETA) Tick(elapsed time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	line := e.line(elapsed)
	n := len(line)
	if n < e.prevLen {
		line += strings.Repeat(" ", e.prevLen-n)
	}
	e.prevLen = n
	if e.NewlineEvery > 0 && elapsed-e.lastNewline >= e.NewlineEvery {
		e.lastNewline = elapsed
		e.prevLen = 0
		fmt.Fprint(e.w, line+"\n")
		e.printed = false
		return
	}
	fmt.Fprint(e.w, line+"\r")
	e.printed = true
}

func running(state byte) bool {
	switch state {
	case 'P', 'C', 'I', 'E', '_', 'X', 'K':
		return false
	}
	return true
}

// runString condenses the jobs' state characters as fio: "r(1),_(2)".
func runString(states []byte) string {
	var b strings.Builder
	for i := 0; i < len(states); {
		k := i
		for k < len(states) && states[k] == states[i] {
			k++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%c(%d)", states[i], k-i)
		i = k
	}
	return b.String()
}

// etaString is fio's eta_to_str: [DDd:][HHh:]MMm:SSs, or "--" if unknown.
func etaString(sec int64) string {
	if sec < 0 {
		return "--"
	}
	s, m, h, d := sec%60, sec/60%60, sec/3600%24, sec/86400
	var b strings.Builder
	if d != 0 {
		fmt.Fprintf(&b, "%02dd:", d)
	}
	if h != 0 || d != 0 {
		fmt.Fprintf(&b, "%02dh:", h)
	}
	fmt.Fprintf(&b, "%02dm:%02ds", m, s)
	return b.String()
}

// jobETA estimates the seconds left for one job, -1 when unknown.
func jobETA(p *Progress, now int64) int64 {
	state := byte(p.State.Load())
	if !running(state) && state != 'P' {
		return 0
	}
	left := int64(-1)
	if end := p.EndNano.Load(); end > 0 {
		left = end - now
		if left < 0 {
			left = 0
		}
	}
	if total := p.TotalBytes.Load(); total > 0 {
		var done uint64
		for d := range p.Bytes {
			done += p.Bytes[d].Load()
		}
		start := p.StartNano.Load()
		if done > 0 && done <= total && now > start {
			bySize := int64(float64(now-start) * float64(total-done) / float64(done))
			if left < 0 || bySize < left {
				left = bySize
			}
		}
	}
	if left < 0 {
		return -1
	}
	return (left + int64(time.Second) - 1) / int64(time.Second)
}

func (e *ETA) line(elapsed time.Duration) string {
	now := int64(elapsed)
	states := make([]byte, len(e.jobs))
	nrRunning, files, nrRamp := 0, 0, 0
	var eta int64
	var bytes, ios [3]uint64
	for i, p := range e.jobs {
		states[i] = byte(p.State.Load())
		if running(states[i]) {
			nrRunning++
			files += int(p.OpenFiles.Load())
			if states[i] == '/' {
				nrRamp++
			}
		}
		if je := jobETA(p, now); je < 0 || eta < 0 {
			eta = -1
		} else if je > eta {
			eta = je
		}
		for d := range bytes {
			bytes[d] += p.Bytes[d].Load()
			ios[d] += p.IOs[d].Load()
		}
	}
	var rate, iops [3]uint64
	if ms := (elapsed - e.last).Milliseconds(); ms > 0 {
		for d := range rate {
			rate[d] = (bytes[d] - e.lastB[d]) * 1000 / uint64(ms) / 1024
			iops[d] = (ios[d] - e.lastIOs[d]) * 1000 / uint64(ms)
		}
	}
	e.last, e.lastB, e.lastIOs = elapsed, bytes, ios

	out := fmt.Sprintf("Jobs: %d (f=%d)", nrRunning, files)
	// Like fio, the ETA is only computed after 3 seconds.
	if elapsed < 3*time.Second || nrRunning == 0 {
		return out + oldestIO(e.jobs)
	}
	perc := "-.-%"
	elapsedSec := int64(elapsed / time.Second)
	if eta >= 0 && nrRamp != nrRunning && elapsedSec+eta > 0 {
		perc = fmt.Sprintf("%3.1f%%", float64(elapsedSec)*100/float64(elapsedSec+eta))
	}
	out += fmt.Sprintf(": [%s][%s]", runString(states), perc)
	names := [3]byte{'r', 'w', 't'}
	var rb, ib []string
	for d := range rate {
		if rate[d] == 0 && iops[d] == 0 {
			continue
		}
		rb = append(rb, fmt.Sprintf("%c=%s", names[d], Num2Str(rate[d], 4, 1024, isPow2(e.kbBase), bwUnit(e.unitBase))))
		ib = append(ib, fmt.Sprintf("%c=%s", names[d], Num2Str(iops[d], 4, 1, false, UnitNone)))
	}
	if len(rb) > 0 {
		out += "[" + strings.Join(rb, ",") + "][" + strings.Join(ib, ",") + " IOPS]"
	}
	return out + "[eta " + etaString(eta) + "]" + oldestIO(e.jobs)
}

// oldestIO is gofio's addition to the status line under io_timeout: the
// age of the oldest I/O in flight once it passes a second, so a stall
// shows before the timeout ends the job: "[oldest I/O 2.4s]".
func oldestIO(jobs []*Progress) string {
	var age int64
	for _, p := range jobs {
		if running(byte(p.State.Load())) {
			age = max(age, p.OldestIO.Load())
		}
	}
	if age <= int64(time.Second) {
		return ""
	}
	return fmt.Sprintf("[oldest I/O %.1fs]", time.Duration(age).Seconds())
}
