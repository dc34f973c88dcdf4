package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// noisyEngine is a run core whose priority side's latency cycles through
// a quarter, a half, twice and four times the FIFO side's 100 µs: rounds
// whose ratios spread far wider than any threshold, so the gate can never
// decide.
func noisyEngine() func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
	n := 0
	cycle := []uint64{25, 50, 200, 400}
	return func(_ context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
		res := &report.Result{Version: opts.Version, Start: time.Unix(1700000000, 0)}
		for _, j := range jobs {
			lat, policy := uint64(100), report.PolicyFIFO
			if j.TWPriority {
				lat, policy = cycle[n%len(cycle)], report.PolicyPriority
				n++
			}
			res.Jobs = append(res.Jobs, fakeJobResult(j, lat*1000, policy))
		}
		return res, nil
	}
}

// TestGateInconclusive checks that a gate that cannot decide says so: exit
// 102 (neither 0 nor 101), a verdict line naming the undecided row with
// the interval it reached, and the same verdict in the JSON, CSV and
// JUnit.
func TestGateInconclusive(t *testing.T) {
	dir := t.TempDir()
	js, csvPath, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "j.xml")
	code, out, errs := runCmdWith(t, noisyEngine(), "--compare", "--fail-if-slower=5", "--name=gate", "--ioengine=null", "--size=1m",
		"--compare-csv="+csvPath, "--junit="+junit)
	if code != ExitInconclusive {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitInconclusive, out, errs)
	}
	last := lastLine(out)
	looks := compare.Design{Rows: 1, MinRounds: 5, Gated: true}.LookRounds()
	most := looks[len(looks)-1]
	// The rounds' log ratios cycle through ±ln 2 and ±ln 4: a quarter of
	// their Walsh averages are 0, and the equivalence interval closes on
	// 0 at 88 rounds and from 104 on, more than the rule's last look
	// gives a row. The verdict line says so, not a budget that would not
	// help.
	for _, want := range []string{"gofio verdict: INCONCLUSIVE: no row slower by more than 5% beyond noise, but 1 undecided after the most rounds the rule takes: iodepth=1 (", fmt.Sprintf("after %d rounds)", most), "1 row: 1 inconclusive",
		"; at the spread measured, the undecided row needs about ", fmt.Sprintf(" rounds, more than the %d a row can run here; --fail-if-slower 10 brings none within reach", most)} {
		if !strings.Contains(last, want) {
			t.Errorf("verdict line %q lacks %q", last, want)
		}
	}
	if !strings.Contains(out, "  inconclusive  ") {
		t.Errorf("table row does not read inconclusive:\n%s", out)
	}
	if code, _, errs := runCmdWith(t, noisyEngine(), "--compare", "--fail-if-slower=5", "--name=gate", "--ioengine=null", "--size=1m",
		"--output-format=json", "--output="+js); code != ExitInconclusive {
		t.Fatalf("json run: exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Compare struct {
			Verdict        string   `json:"verdict"`
			ThresholdPct   *float64 `json:"threshold_pct"`
			GateMetric     string   `json:"gate_metric"`
			BudgetToDecide *float64 `json:"budget_to_decide_s"`
			Rows           []struct {
				Verdict string `json:"verdict"`
				Stats   struct {
					Verdict        string  `json:"verdict"`
					Rounds         int     `json:"rounds"`
					RoundsToDecide int     `json:"rounds_to_decide"`
					Projected      string  `json:"projected_verdict"`
					RoundSD        float64 `json:"round_sd"`
				} `json:"stats"`
			} `json:"rows"`
		} `json:"gofio_compare"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Compare
	if c.Verdict != report.GateInconclusive || c.ThresholdPct == nil || *c.ThresholdPct != 5 || c.GateMetric != report.GateAvg ||
		len(c.Rows) != 1 || c.Rows[0].Verdict != report.VerdictInconclusive || c.Rows[0].Stats.Verdict != report.VerdictInconclusive || c.Rows[0].Stats.Rounds != most {
		t.Errorf("gofio_compare %+v", c)
	}
	if st := c.Rows[0].Stats; st.RoundsToDecide <= most || st.RoundsToDecide > 120 || st.Projected != report.VerdictSame ||
		math.Abs(st.RoundSD-1.1) > 0.01 || c.BudgetToDecide != nil {
		t.Errorf("projection: %d rounds to decide (%q), per-round sd %g, budget_to_decide_s %v; want the same in %d to 120 rounds, sd 1.1, no budget",
			st.RoundsToDecide, st.Projected, st.RoundSD, c.BudgetToDecide, most+2)
	}
	for _, f := range []string{csvPath, junit} {
		data, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(data), "inconclusive") {
			t.Errorf("%s does not say inconclusive (%v):\n%s", f, err, data)
		}
	}
}

// TestCompareStdout checks what a --compare prints on stdout: without
// --output-format the table and one verdict line, none of the per-run
// reports; with --output-format=normal the per-run reports too.
func TestCompareStdout(t *testing.T) {
	args := []string{"--compare", "--sweep", "iodepth=1,8", "--repeat=2", "--name=gate", "--ioengine=null", "--size=1m"}
	code, out, errs := runCmdWith(t, fakeEngine(200, 100), args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "gofio point:") || strings.Contains(out, "Run status group") {
		t.Errorf("per-run reports on stdout without --output-format=normal:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "gofio compare: ") || !strings.HasPrefix(lastLine(out), "gofio verdict: not gated") ||
		strings.Count(out, "gofio verdict") != 1 {
		t.Errorf("want the table, then one verdict line:\n%s", out)
	}
	code, out, errs = runCmdWith(t, fakeEngine(200, 100), append(args, "--output-format=normal")...)
	if code != ExitOK || strings.Count(out, "gofio point:") != 8 || !strings.HasPrefix(lastLine(out), "gofio verdict: ") {
		t.Errorf("--output-format=normal: exit %d, %d point reports, last line %q: %s", code, strings.Count(out, "gofio point:"), lastLine(out), errs)
	}
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestGateLooksPlannedToBudget checks that a gated --compare of time-based
// runs plans its looks to the --budget: one row of 1 s runs in 1 minute
// is planned for 1.5 times the 30 rounds an even share gives it, the last
// look at 46 rounds (45 rounded up to a pair), not at the default's 82.
func TestGateLooksPlannedToBudget(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	code, _, errs := runCmdWith(t, noisyEngine(), "--compare", "--fail-if-slower=5", "--budget=1m", "--name=gate", "--ioengine=null", "--size=1m",
		"--time_based", "--runtime=1s", "--output-format=json", "--output="+js)
	if code != ExitInconclusive {
		t.Fatalf("exit %d, want %d: %s", code, ExitInconclusive, errs)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Compare struct {
			Design struct {
				Looks []int `json:"looks"`
			} `json:"design"`
			Rows []struct {
				Stats struct {
					Rounds int `json:"rounds"`
				} `json:"stats"`
			} `json:"rows"`
		} `json:"gofio_compare"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	looks := doc.Compare.Design.Looks
	if len(looks) != compare.Looks || looks[len(looks)-1] != 46 || len(doc.Compare.Rows) != 1 || doc.Compare.Rows[0].Stats.Rounds != 46 {
		t.Errorf("looks %v, rows %+v; want %d looks, the last and the row's rounds at 46", looks, doc.Compare.Rows, compare.Looks)
	}
}
