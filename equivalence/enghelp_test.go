package equivalence

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// engHelpDiffs are the known differences between fio 3.33's and gofio's
// --enghelp option lists: options gofio does not implement ("-") and
// gofio's own ("+").
var engHelpDiffs = map[string][]string{
	"io_uring": {"+coop_taskrun", "+defer_taskrun",
		"+iowq_max_workers", "+single_issuer", "+sqthread_idle", "+taskrun_mode"},
}

// TestEngHelpMatchesFio checks that `gofio --enghelp=NAME` lists the
// options `fio --enghelp=NAME` does, for every engine both run, but for
// the known differences and the options fio added after 3.33 (Since).
func TestEngHelpMatchesFio(t *testing.T) {
	fio, gofio := bins.get(t)
	names := func(bin, engine string) map[string]bool {
		out, _ := exec.Command(bin, "--enghelp="+engine).CombinedOutput()
		m := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if k, _, ok := strings.Cut(l, ":"); ok && !strings.Contains(l, "has no options") {
				m[strings.TrimSpace(k)] = true
			}
		}
		return m
	}
	for _, e := range jobfile.SupportedEngines() {
		f, g := names(fio, e), names(gofio, e)
		if f["fio"] || len(f) == 0 && strings.HasPrefix(e, "dir") {
			continue // fio 3.33 does not know the engine (dircreate...)
		}
		var diffs []string
		for k := range f {
			if !g[k] {
				diffs = append(diffs, "-"+k)
			}
		}
		newer := map[string]bool{}
		for _, o := range jobfile.EngineOptions(e) {
			newer[o.Name] = o.Since != ""
		}
		for k := range g {
			if !f[k] && !newer[k] {
				diffs = append(diffs, "+"+k)
			}
		}
		slices.Sort(diffs)
		want := slices.Clone(engHelpDiffs[e])
		slices.Sort(want)
		if !slices.Equal(diffs, want) {
			t.Errorf("--enghelp=%s: differences %v, want %v", e, diffs, want)
		}
	}
}
