package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/klock"
)

// klockFixture is cmpFixture with kernel lock contention on both sides:
// the new side (priority) waits a third of the old one's at depth 8, and
// the last row's old side could not trace.
func klockFixture() *Comparison {
	c := cmpFixture()
	for i := range c.Rows {
		r := &c.Rows[i]
		for k, s := range []*ComparisonSide{&r.New, &r.Old} {
			if !s.Ran() {
				continue
			}
			wait := 30.0 * float64(1+2*k)
			l := &klock.Locks{Available: true, IOs: 100_000, CPUNs: 1e9}
			l.AddSite(klock.Site{Name: "io_wq_enqueue", Subsystem: klock.SubIOWQ, Count: 4000, WaitNs: uint64(wait * 60_000),
				SpinNs: uint64(wait * 60_000)})
			l.AddSite(klock.Site{Name: "try_to_wake_up", Subsystem: klock.SubOther, Count: 1000, WaitNs: uint64(wait * 40_000),
				SpinNs: uint64(wait * 40_000)})
			l.SortSites()
			var reps []KLockRepeat
			for i := range s.Repeats {
				reps = append(reps, NewKLockRepeat(i, l))
			}
			s.KLock = NewKLockSide(l, reps)
		}
		if r.Value == "8" {
			r.KLockStats = &RowStats{Metric: KLockMetric, NewN: 5, OldN: 5, New: 30, Old: 90, DeltaPct: -66.7,
				LoPct: -70, HiPct: -60, Confidence: 0.968, P: 0.0079, Alpha: 0.05, Verdict: VerdictFaster}
		}
	}
	last := &c.Rows[len(c.Rows)-1]
	last.Old.KLock = NewKLockSide(&klock.Locks{Reason: "not root: tracing needs root (BPF programs on tracepoints)"}, nil)
	return c
}

// TestKLockSide sums a side: per-I/O figures, io-wq's share of the wait,
// the top sites, and the per-repeat waits the verdict compares.
func TestKLockSide(t *testing.T) {
	r := klockFixture().Rows[1]
	k := r.Old.KLock
	if !k.Measured() || k.ContentionsPerIO != 0.05 || k.WaitNsPerIO != 90 || k.WaitShare != 0.009 || k.IOWQShare != 0.6 ||
		len(k.Sites) != 2 || k.Sites[0].Name != "io_wq_enqueue" {
		t.Fatalf("side: %+v", k)
	}
	if w := k.WaitValues(); len(w) != 5 || w[0] != 90 {
		t.Fatalf("per repeat: %v", w)
	}
	if KLockVerdict(r.KLockStats) != "less contention" || KLockVerdict(&RowStats{Verdict: VerdictSlower}) != "more contention" ||
		KLockVerdict(&RowStats{Verdict: VerdictTooFew}) != VerdictTooFew || KLockVerdict(nil) != "" {
		t.Fatal("verdict words")
	}
	if NewKLockSide(nil, nil) != nil || (*KLockSide)(nil).Measured() {
		t.Fatal("nil side")
	}
}

// TestKLockTable writes the lock table after the comparison table: a
// line per side, a Δ line with the verdict where both sides measured, the
// reason where one could not, and the rule that says what it holds.
func TestKLockTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareTable(&b, klockFixture()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"depth      side  cont/IO  wait ns/IO  spin %CPU  io-wq %",
		"8  priority   0.0500        30.0       0.30     60.0  io_wq_enqueue (4000)",
		"8      fifo   0.0500        90.0       0.90     60.0  io_wq_enqueue (4000)",
		"8        Δ%    +0.0%      -66.7%     -66.7%",
		"less contention (-66.7% [-70.0%, -60.0%] p=0.0079)",
		"unavailable: not root: tracing needs root",
		KLockRule,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var md bytes.Buffer
	if err := WriteCompareMarkdown(&md, klockFixture(), -1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| depth | side | cont/IO | wait ns/IO |") || !strings.Contains(md.String(), "less contention") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// Without any side measured, one line says why.
	c := cmpFixture()
	c.Rows[0].New.KLock = NewKLockSide(&klock.Locks{Reason: "no lock tracepoints"}, nil)
	b.Reset()
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nkernel locks unavailable: no lock tracepoints\n") {
		t.Errorf("unavailable:\n%s", b.String())
	}
	b.Reset()
	if err := WriteCompareTable(&b, cmpFixture()); err != nil || strings.Contains(b.String(), "kernel locks") {
		t.Errorf("a comparison without kernel locks shows them: %v\n%s", err, b.String())
	}
}

// TestKLockCSVAndJSON: the CSV has each side's lock figures, and the JSON
// carries them and the verdict, and reads back (gofio diff) to the same
// sides.
func TestKLockCSVAndJSON(t *testing.T) {
	c := klockFixture()
	var b bytes.Buffer
	if err := WriteCompareCSV(&b, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	row8 := recs[2]
	if row8[col["new_klock_wait_ns_per_io_all_ios"]] != "30.000" || row8[col["old_klock_wait_ns_per_io_all_ios"]] != "90.000" ||
		row8[col["new_klock_top_site"]] != "io_wq_enqueue" || row8[col["old_klock_wait_ns_per_io_per_repeat"]] != "90.000;90.000;90.000;90.000;90.000" {
		t.Fatalf("csv row: %v", row8)
	}
	if last := recs[len(recs)-1]; !strings.HasPrefix(last[col["old_klock_unavailable"]], "not root") {
		t.Fatalf("csv unavailable: %v", last)
	}
	raw, err := json.Marshal(CompareJSON(c))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []struct {
			New struct {
				KL *KLockSideJSON `json:"kernel_locks"`
			} `json:"new"`
			Stats *struct {
				Verdict string `json:"verdict"`
				Words   string `json:"words"`
			} `json:"kernel_locks_stats"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if kl := doc.Rows[1].New.KL; kl == nil || kl.WaitNsPerIO != 30 || len(kl.PerRepeat) != 5 || kl.Sites[0].Name != "io_wq_enqueue" {
		t.Fatalf("json side: %+v", doc.Rows[1].New.KL)
	}
	if s := doc.Rows[1].Stats; s == nil || s.Verdict != VerdictFaster || s.Words != "less contention" || doc.Rows[0].Stats != nil {
		t.Fatalf("json stats: %+v", doc.Rows[1].Stats)
	}
	var back ComparisonJSON
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	rc := back.Comparison()
	for i := range c.Rows {
		for _, p := range [][2]*ComparisonSide{{&c.Rows[i].New, &rc.Rows[i].New}, {&c.Rows[i].Old, &rc.Rows[i].Old}} {
			if !reflect.DeepEqual(p[0].KLock, p[1].KLock) {
				t.Errorf("row %d: read back %+v, want %+v", i, p[1].KLock, p[0].KLock)
			}
		}
	}
}
