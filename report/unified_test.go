package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// unifiedResult is synthResult with every job's unified_rw_reporting set.
func unifiedResult(mode int) *Result {
	r := synthResult()
	for _, j := range r.Jobs {
		j.Job.UnifiedRW = mode
	}
	return r
}

// TestMixedFoldsDirections checks Mixed against fio's sum_thread_stats for
// unified_rw_reporting=mixed: counts and bytes added, latency stats merged,
// the longest runtime.
func TestMixedFoldsDirections(t *testing.T) {
	j := synthResult().Jobs[0]
	m := Mixed(j)
	r, w := &j.Dirs[jobfile.DirRead], &j.Dirs[jobfile.DirWrite]
	md := &m.Dirs[jobfile.DirRead]
	if md.TotalIOs != r.TotalIOs+w.TotalIOs || md.IOBytes != r.IOBytes+w.IOBytes {
		t.Errorf("mixed ios/bytes %d/%d, want %d/%d", md.TotalIOs, md.IOBytes, r.TotalIOs+w.TotalIOs, r.IOBytes+w.IOBytes)
	}
	if md.Clat.N != r.Clat.N+w.Clat.N || md.Clat.Min != min(r.Clat.Min, w.Clat.Min) || md.Clat.Max != max(r.Clat.Max, w.Clat.Max) {
		t.Errorf("mixed clat %+v from %+v and %+v", md.Clat, r.Clat, w.Clat)
	}
	if m.Dirs[jobfile.DirWrite].TotalIOs != 0 || md.Runtime != max(r.Runtime, w.Runtime) {
		t.Errorf("mixed write dir %+v, runtime %v", m.Dirs[jobfile.DirWrite], md.Runtime)
	}
	if j.Dirs[jobfile.DirWrite].TotalIOs == 0 {
		t.Error("Mixed changed its argument")
	}
}

// TestUnifiedJSONKeys checks the direction objects of fio 3.33's JSON:
// mixed has "mixed" alone (no read, write, trim or sync), both has the four
// and then "mixed".
func TestUnifiedJSONKeys(t *testing.T) {
	for _, tc := range []struct {
		mode int
		want []string
	}{
		{jobfile.UnifiedNone, []string{"read", "write", "trim", "sync"}},
		{jobfile.UnifiedMixed, []string{"mixed"}},
		{jobfile.UnifiedBoth, []string{"read", "write", "trim", "sync", "mixed"}},
	} {
		var b bytes.Buffer
		if err := WriteJSON(&b, unifiedResult(tc.mode), false); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Jobs []map[string]json.RawMessage `json:"jobs"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range []string{"read", "write", "trim", "sync", "mixed"} {
			if _, ok := doc.Jobs[0][k]; ok {
				got = append(got, k)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("mode %d: direction keys %v, want %v", tc.mode, got, tc.want)
		}
		// The key order is fio's: mixed comes last of the directions.
		if tc.mode == jobfile.UnifiedBoth && bytes.Index(b.Bytes(), []byte(`"mixed"`)) < bytes.Index(b.Bytes(), []byte(`"sync"`)) {
			t.Error("both: mixed before sync")
		}
	}
}

// TestUnifiedNormalAndTerse checks the normal text's direction lines and
// group lines, and the terse field counts (fio 3.33 terse v3: 130 fields,
// mixed drops the write status, both appends a mixed status).
func TestUnifiedNormalAndTerse(t *testing.T) {
	var none, mixed, both bytes.Buffer
	for _, x := range []struct {
		mode int
		b    *bytes.Buffer
	}{{jobfile.UnifiedNone, &none}, {jobfile.UnifiedMixed, &mixed}, {jobfile.UnifiedBoth, &both}} {
		if err := WriteNormal(x.b, unifiedResult(x.mode)); err != nil {
			t.Fatal(err)
		}
	}
	if s := mixed.String(); !strings.Contains(s, "  mixed: IOPS=") || strings.Contains(s, "  read: IOPS=") || !strings.Contains(s, "  MIXED: bw=") || strings.Contains(s, "   READ: bw=") {
		t.Errorf("mixed normal report:\n%s", s)
	}
	s := both.String()
	for _, want := range []string{"  read: IOPS=", "  write: IOPS=", "   READ: bw=", "  WRITE: bw=", "  MIXED: bw="} {
		if !strings.Contains(s, want) {
			t.Errorf("both: no %q in\n%s", want, s)
		}
	}
	// Documented difference: fio 3.33 prints the "both" mixed line as
	// "IOPS=0, BW=0 (0)(0B/...)" (its mixed stats lose sig_figs); gofio
	// prints the summed figures.
	if !strings.Contains(s, "  mixed: IOPS=19.5k") {
		t.Errorf("both: mixed line lacks the summed IOPS:\n%s", s)
	}
	fields := func(mode int) int {
		var b bytes.Buffer
		r := unifiedResult(mode)
		r.Jobs = r.Jobs[:1]
		if err := WriteTerse(&b, r); err != nil {
			t.Fatal(err)
		}
		return len(strings.Split(strings.TrimSpace(b.String()), ";"))
	}
	n, m, bo := fields(jobfile.UnifiedNone), fields(jobfile.UnifiedMixed), fields(jobfile.UnifiedBoth)
	if dir := n - m; dir != bo-n || dir != 41 {
		t.Errorf("terse fields none/mixed/both %d/%d/%d: want one 41-field direction less and more", n, m, bo)
	}
}
