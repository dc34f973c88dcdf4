package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gofio/gofio/internal/klock"
)

// This file carries the kernel lock contention (klock.Locks,
// kernel_locks=1) into comparisons: each side of a row gets its
// contentions and wait per I/O, per repeat and over every repeat, its
// spinning share of CPU and the sites waited on most; the row gets a
// verdict on the per-repeat wait per I/O (ComparisonRow.KLockStats), so
// that two kernels, or iowq_max_workers=1,4,16, compare side by side.

// KLockMetric is RowStats.Metric of a row's lock verdict: the lock wait per
// I/O in ns, where less is better.
const KLockMetric = "klock_wait_ns_per_io"

// KLockCompareSites is how many sites a comparison names per side.
const KLockCompareSites = 3

// KLockRepeat is one repeat's lock contention: the figures the row's
// verdict compares.
type KLockRepeat struct {
	// Repeat is the repeat's (or round's) 0-based number.
	Repeat           int     `json:"repeat"`
	ContentionsPerIO float64 `json:"contentions_per_io"`
	WaitNsPerIO      float64 `json:"wait_ns_per_io"`
	WaitShare        float64 `json:"wait_share"`
}

// KLockSide is the kernel lock contention of one side of a comparison row:
// each repeat's figures, and every repeat's jobs merged.
type KLockSide struct {
	// Available is false when no run of the side could trace; Reason
	// says why and the figures are zero.
	Available bool
	Reason    string
	// Repeats are the traced repeats' figures, in repeat order.
	Repeats []KLockRepeat
	// ContentionsPerIO, WaitNsPerIO and WaitShare are over every repeat;
	// IOWQShare is io-wq's sites' part of the wait (0..1).
	ContentionsPerIO, WaitNsPerIO, WaitShare, IOWQShare float64
	// Sites are the sites waited on most, over every repeat.
	Sites []klock.Site
}

// NewKLockRepeat is the figures of repeat (or round) number repeat from
// its jobs' merged contention.
func NewKLockRepeat(repeat int, l *klock.Locks) KLockRepeat {
	return KLockRepeat{repeat, l.ContentionsPerIO(), l.WaitNsPerIO(), l.WaitShare()}
}

// NewKLockSide summarizes a side's merged contention and its repeats'
// figures; nil for nil.
func NewKLockSide(l *klock.Locks, repeats []KLockRepeat) *KLockSide {
	if l == nil {
		return nil
	}
	s := &KLockSide{Available: l.Available, Reason: l.Reason}
	if !l.Available {
		return s
	}
	s.Repeats = repeats
	s.ContentionsPerIO, s.WaitNsPerIO, s.WaitShare = l.ContentionsPerIO(), l.WaitNsPerIO(), l.WaitShare()
	for _, t := range l.BySubsystem() {
		if t.Subsystem == klock.SubIOWQ && l.WaitNs > 0 {
			s.IOWQShare = float64(t.WaitNs) / float64(l.WaitNs)
		}
	}
	s.Sites = slices.Clone(l.Top(KLockCompareSites))
	return s
}

// Measured reports whether s holds figures.
func (s *KLockSide) Measured() bool { return s != nil && s.Available && len(s.Repeats) > 0 }

// unavailable returns why s could not trace, and true, when it traced
// nothing; false when it traced or s is nil.
func (s *KLockSide) unavailable() (string, bool) {
	if s == nil {
		return "", false
	}
	return s.Reason, !s.Available
}

// WaitValues are the per-repeat waits per I/O the verdict compares.
func (s *KLockSide) WaitValues() []float64 {
	out := make([]float64, len(s.Repeats))
	for i, r := range s.Repeats {
		out[i] = r.WaitNsPerIO
	}
	return out
}

// HasKLock reports whether any side of any row has lock contention
// (traced or unavailable): the writers then show the lock table.
func (c *Comparison) HasKLock() bool {
	return c.anyPairSide(func(s *ComparisonSide) bool { return s.KLock != nil })
}

// KLockRule says what the lock table holds.
const KLockRule = "kernel locks (kernel_locks=1): contended kernel lock acquisitions of the job's threads, its SQPOLL " +
	"thread and io-wq workers, from lock:contention_begin/end; cont/IO and wait ns/IO over every I/O of every repeat, " +
	"spin %CPU = the spinning part of the wait as a share of those threads' CPU time, io-wq = io-wq's sites' share of " +
	"the wait, top site = the site waited on most (first kernel function above the lock primitives) with its " +
	"contentions; Δ% = (new - old) / old; the verdict compares the per-repeat wait per I/O as the rows' gate " +
	"metric is compared: more contention, less contention, ~ (no evidence of a difference) or too few repeats"

// KLockVerdict words a row's lock verdict.
func KLockVerdict(s *RowStats) string {
	if s == nil {
		return ""
	}
	switch s.Verdict {
	case VerdictSlower:
		return "more contention"
	case VerdictFaster:
		return "less contention"
	}
	return s.Verdict
}

// writeKLockTable writes the lock table (or the line saying why there is
// none) after the comparison table.
func writeKLockTable(b *strings.Builder, c *Comparison) error {
	if !c.HasKLock() {
		return nil
	}
	if !klockMeasuredAny(c) {
		b.WriteString("\n" + cmpKLockUnavailable(c) + "\n")
		return nil
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpKLockHeader(c), "\t"))
	for _, r := range cmpKLockRows(c) {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	return nil
}

// writeKLockMarkdown writes the lock table as Markdown, or the line saying
// why there is none.
func writeKLockMarkdown(b *strings.Builder, c *Comparison) {
	if !c.HasKLock() {
		return
	}
	if !klockMeasuredAny(c) {
		fmt.Fprintf(b, "%s\n\n", mdEsc(cmpKLockUnavailable(c)))
		return
	}
	mdTable(b, cmpKLockHeader(c), cmpKLockRows(c))
}

// klockCells is one side's lock table cells.
func klockCells(s *ComparisonSide) []string {
	k := s.KLock
	switch {
	case !s.Ran() || k == nil:
		return []string{"-", "-", "-", "-", "-", ""}
	case !k.Available:
		return []string{"-", "-", "-", "-", "-", "unavailable: " + k.Reason}
	}
	top := "-"
	if len(k.Sites) > 0 {
		top = fmt.Sprintf("%s (%d)", k.Sites[0].Name, k.Sites[0].Count)
	}
	return []string{strconv.FormatFloat(k.ContentionsPerIO, 'f', 4, 64), strconv.FormatFloat(k.WaitNsPerIO, 'f', 1, 64),
		strconv.FormatFloat(100*k.WaitShare, 'f', 2, 64), strconv.FormatFloat(100*k.IOWQShare, 'f', 1, 64), top, ""}
}

// klockDeltaCells is the change from old to new and the row's verdict.
func klockDeltaCells(n, o *KLockSide, st *RowStats) []string {
	d := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%+.1f%%", (a-b)/b*100)
	}
	wait := d(n.WaitNsPerIO, o.WaitNsPerIO)
	verdict := ""
	if st != nil {
		verdict = KLockVerdict(st)
		if st.HasInterval() {
			verdict += fmt.Sprintf(" (%+.1f%% [%+.1f%%, %+.1f%%] p=%.3g)", st.DeltaPct, st.LoPct, st.HiPct, st.P)
		}
	}
	return []string{d(n.ContentionsPerIO, o.ContentionsPerIO), wait, d(n.WaitShare, o.WaitShare), "", "", verdict}
}

// klockMeasuredAny reports whether any side measured contention.
func klockMeasuredAny(c *Comparison) bool {
	return c.anyPairSide(func(s *ComparisonSide) bool { return s.KLock.Measured() })
}

// cmpKLockUnavailable is the one line that replaces the lock table when
// no side measured: why, each distinct reason once.
func cmpKLockUnavailable(c *Comparison) string {
	reasons := c.unavailableReasons(func(s *ComparisonSide) kernelTrace { return s.KLock })
	return "kernel locks unavailable: " + strings.Join(reasons, "; ")
}

// cmpKLockHeader heads the lock table.
func cmpKLockHeader(c *Comparison) []string {
	h := []string{c.KeyLabel()}
	if c.Compared {
		h = append(h, "side")
	}
	return append(h, "cont/IO", "wait ns/IO", "spin %CPU", "io-wq %", "top site", "verdict")
}

// cmpKLockRows is the lock table's rows: per comparison row one line a
// side and, where both sides measured, one line of Δ% with the verdict.
func cmpKLockRows(c *Comparison) [][]string {
	return cmpSideRows(c, klockCells, false, func(r *ComparisonRow) []string {
		if r.New.KLock.Measured() && r.Old.KLock.Measured() {
			return klockDeltaCells(r.New.KLock, r.Old.KLock, r.KLockStats)
		}
		return nil
	})
}

// cmpSideRows is the rows of a kernel table, cells giving a side's
// figures: per comparison row one line a side (the new side's alone, with
// no side column, when nothing is compared), with kernel the kernel's
// reference's line where it ran, and a line of Δ% where delta gives one.
func cmpSideRows(c *Comparison, cells func(*ComparisonSide) []string, kernel bool, delta func(*ComparisonRow) []string) [][]string {
	var rows [][]string
	for i := range c.Rows {
		r := &c.Rows[i]
		if !c.Compared {
			rows = append(rows, append([]string{r.Value}, cells(&r.New)...))
			continue
		}
		rows = append(rows, append([]string{r.Value, cmpOr(c.New.Name)}, cells(&r.New)...),
			append([]string{r.Value, cmpOr(c.Old.Name)}, cells(&r.Old)...))
		if kernel && r.Kernel.Ran() {
			rows = append(rows, append([]string{r.Value, KernelRefName}, cells(&r.Kernel)...))
		}
		if d := delta(r); d != nil {
			rows = append(rows, append([]string{r.Value, "Δ%"}, d...))
		}
	}
	return rows
}

// junitKLock is a side's lock contention as a line of a JUnit test
// case's output, "" without it.
func junitKLock(name string, s *ComparisonSide) string {
	if line, done := junitUntraced("kernel locks", name, s, s.KLock != nil, s.KLock); done {
		return line
	}
	c := klockCells(s)
	return fmt.Sprintf("kernel locks %s: cont/IO=%s wait_ns/IO=%s spin=%s%% io-wq=%s%% top=%s\n", name, c[0], c[1], c[2], c[3], c[4])
}

// csvKLockFigures are the CSV's lock columns per side.
func csvKLockFigures() []csvSideFigure {
	num := func(prec int, v func(k *KLockSide) float64) func(*Comparison, *ComparisonSide, SideSpec) string {
		return func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || !s.KLock.Measured() {
				return ""
			}
			return strconv.FormatFloat(v(s.KLock), 'f', prec, 64)
		}
	}
	return []csvSideFigure{
		{"klock_contentions_per_io_all_ios", num(6, func(k *KLockSide) float64 { return k.ContentionsPerIO })},
		{"klock_wait_ns_per_io_all_ios", num(3, func(k *KLockSide) float64 { return k.WaitNsPerIO })},
		{"klock_wait_share_all_ios", num(6, func(k *KLockSide) float64 { return k.WaitShare })},
		{"klock_wait_ns_per_io_per_repeat", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || !s.KLock.Measured() {
				return ""
			}
			var parts []string
			for _, v := range s.KLock.WaitValues() {
				parts = append(parts, strconv.FormatFloat(v, 'f', 3, 64))
			}
			return strings.Join(parts, ";")
		}},
		{"klock_top_site", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || !s.KLock.Measured() || len(s.KLock.Sites) == 0 {
				return ""
			}
			return s.KLock.Sites[0].Name
		}},
		{"klock_unavailable", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || s.KLock == nil || s.KLock.Available {
				return ""
			}
			return s.KLock.Reason
		}},
	}
}

// KLockSideJSON is the JSON shape of a KLockSide.
type KLockSideJSON struct {
	Available        bool          `json:"available"`
	Reason           string        `json:"reason,omitempty"`
	ContentionsPerIO float64       `json:"contentions_per_io"`
	WaitNsPerIO      float64       `json:"wait_ns_per_io"`
	WaitShare        float64       `json:"wait_share"`
	IOWQShare        float64       `json:"iowq_wait_share"`
	PerRepeat        []KLockRepeat `json:"per_repeat"`
	Sites            []klock.Site  `json:"sites"`
}

func klockSideJSON(s *KLockSide) *KLockSideJSON {
	if s == nil {
		return nil
	}
	j := &KLockSideJSON{Available: s.Available, Reason: s.Reason, ContentionsPerIO: cmpRound(s.ContentionsPerIO, 6),
		WaitNsPerIO: cmpRound(s.WaitNsPerIO, 3), WaitShare: cmpRound(s.WaitShare, 6), IOWQShare: cmpRound(s.IOWQShare, 4),
		PerRepeat: []KLockRepeat{}, Sites: []klock.Site{}}
	for _, r := range s.Repeats {
		j.PerRepeat = append(j.PerRepeat, KLockRepeat{r.Repeat, cmpRound(r.ContentionsPerIO, 6), cmpRound(r.WaitNsPerIO, 3),
			cmpRound(r.WaitShare, 6)})
	}
	j.Sites = append(j.Sites, s.Sites...)
	return j
}

func (j *KLockSideJSON) side() *KLockSide {
	if j == nil {
		return nil
	}
	s := &KLockSide{Available: j.Available, Reason: j.Reason, Repeats: j.PerRepeat, ContentionsPerIO: j.ContentionsPerIO,
		WaitNsPerIO: j.WaitNsPerIO, WaitShare: j.WaitShare, IOWQShare: j.IOWQShare, Sites: j.Sites}
	if len(s.Repeats) == 0 {
		s.Repeats = nil
	}
	if len(s.Sites) == 0 {
		s.Sites = nil
	}
	return s
}

// klockStatsJSON is a row's lock verdict in the JSON, with its words.
type klockStatsJSON struct {
	*RowStatsJSON
	Words string `json:"words"`
}

func klockRowJSON(s *RowStats) *klockStatsJSON {
	if s == nil {
		return nil
	}
	return &klockStatsJSON{rowStatsJSON(s), KLockVerdict(s)}
}
