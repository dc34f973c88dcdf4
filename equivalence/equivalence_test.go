package equivalence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gofio/gofio/internal/mounttest"
)

// programs are the binaries the suite compares, found or built once.
type programs struct {
	once  sync.Once
	fio   string
	gofio string
	built bool   // gofio was built into a temporary directory, removed at the end
	skip  string // why the suite cannot run
	err   error
	// release is the newer fio's release ("3.42") when $GOFIO_EQ_FIO
	// names one, "" for fio 3.33.
	release string
}

// FioEnv names the environment variable that points the suite at another
// fio binary than the one on PATH: fio 3.33, or fio 3.42, against which
// TestEquivalence runs every row (gofio with --fio-release=3.42) and the
// suite's other tests skip.
const FioEnv = "GOFIO_EQ_FIO"

// GofioEnv names the environment variable that gives the suite a gofio
// binary built beforehand instead of building one: .ci/unprivileged runs
// the suite as a user without a Go build cache.
const GofioEnv = "GOFIO_EQ_GOFIO"

// newerReleases are the fio releases newer than 3.33 whose output gofio
// writes (report.Release) and whose differences the rows write down.
var newerReleases = []string{"3.42"}

// newerRelease returns the release of fio --version's output when it is
// one of newerReleases, else "".
func newerRelease(version string) string {
	v := strings.TrimPrefix(strings.TrimSpace(version), "fio-")
	if slices.Contains(newerReleases, v) {
		return v
	}
	return ""
}

// get returns fio 3.33 and gofio for the tests whose checks hold fio
// 3.33's numbers; with a newer fio (FioEnv) they skip.
func (p *programs) get(t *testing.T) (fio, gofio string) {
	t.Helper()
	fio, gofio, release := p.getAny(t)
	if release != "" {
		t.Skipf("%s names fio %s: this test holds fio 3.33's results (only TestEquivalence's rows run against fio %s)", FioEnv, release, release)
	}
	return fio, gofio
}

// getAny returns the fio the suite compares with, gofio, and the fio
// release when it is a newer one than 3.33 ("" for fio 3.33): fio on PATH,
// which must be fio 3.33, or the fio $GOFIO_EQ_FIO names, fio 3.33 or a
// newer release gofio writes the output of (--fio-release).
func (p *programs) getAny(t *testing.T) (fio, gofio, release string) {
	t.Helper()
	p.once.Do(func() {
		var err error
		if p.fio = os.Getenv(FioEnv); p.fio == "" {
			if p.fio, err = exec.LookPath("fio"); err != nil {
				p.skip = "fio is not installed (.ci/run installs fio 3.33): skipping the equivalence suite"
				return
			}
		}
		// The rows hold fio 3.33's numbers, layouts and bugs: another fio
		// would fail rows for its own changes, not gofio's, unless the
		// rows say how that fio differs (Row.Fio342).
		out, err := exec.Command(p.fio, "--version").Output()
		if p.release = newerRelease(string(out)); p.release == "" || os.Getenv(FioEnv) == "" {
			p.release = ""
			if p.skip = fioVersionSkip(p.fio, string(out), err); p.skip != "" {
				return
			}
		}
		if p.gofio = os.Getenv(GofioEnv); p.gofio != "" {
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			p.skip = "the go command is not on PATH: cannot build gofio for the equivalence suite"
			return
		}
		dir, err := os.MkdirTemp("", "gofio-equivalence-bin-")
		if err != nil {
			p.err = err
			return
		}
		p.gofio, p.built = filepath.Join(dir, "gofio"), true
		cmd := exec.Command(goBin, "build", "-o", p.gofio, "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			p.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if p.skip != "" {
		t.Skip(p.skip)
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.fio, p.gofio, p.release
}

var bins programs

// wantFio is the fio the rows were checked against.
const wantFio = "fio-3.33"

// fioVersionSkip returns why the suite cannot run with the fio at path,
// whose --version printed out (err: how that ended), or "" when it is
// fio 3.33.
func fioVersionSkip(path, out string, err error) string {
	if err != nil {
		return fmt.Sprintf("%s --version: %v: skipping the equivalence suite, which needs %s (.ci/run installs it)", path, err, wantFio)
	}
	if v := strings.TrimSpace(out); v != wantFio {
		return fmt.Sprintf("%s is %q, not %s: skipping the equivalence suite, whose rows hold %s's numbers (.ci/run installs it)", path, v, wantFio, wantFio)
	}
	return ""
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.built {
		os.RemoveAll(filepath.Dir(bins.gofio))
	}
	os.Exit(code)
}

// scratchRoot returns a fresh directory for one row's scratch files: under
// /dev/shm when it is writable, else under the test's temporary directory.
func scratchRoot(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "gofio-eq-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func TestEquivalence(t *testing.T) {
	fio, gofio, release := bins.getAny(t)
	names := map[string]bool{}
	for _, r := range Rows() {
		if names[r.Name] {
			t.Fatalf("two rows named %q", r.Name)
		}
		names[r.Name] = true
		r := r
		t.Run(r.Name, func(t *testing.T) {
			if r.Root != "" && os.Geteuid() != 0 {
				t.Skipf("%s: needs root: %s", r.Ref, r.Root)
			}
			if why := r.skipAgainst(release); why != "" {
				t.Skip(why)
			}
			if !r.Serial {
				t.Parallel()
			}
			r.release = release
			diffs := confirm(r.attempts(), func() []string { return runRow(t, r, fio, gofio) }, t.Logf)
			report := strings.Join(diffs, "\n  ")
			switch {
			case release != "" && r.Fio342 != "" && len(diffs) > 0:
				t.Skipf("fio %s differs from fio 3.33 on this row (%s): %s\n  %s", release, r.Ref, r.Fio342, report)
			case release != "" && r.Fio342 != "":
				t.Errorf("%s: fio %s gives what gofio gives now: drop the row's Fio342 (%q) or say what still differs", r.Ref, release, r.Fio342)
			case r.Pending != "" && len(diffs) > 0:
				t.Skipf("pending (%s): %s\n  %s", r.Ref, r.Pending, report)
			case r.Pending != "":
				t.Errorf("%s: the row matches fio now: drop its Pending (%q)", r.Ref, r.Pending)
			case len(diffs) > 0:
				t.Errorf("%s: gofio differs from fio with %s:\n  %s", r.Ref, strings.Join(r.Command("DIR"), " "), report)
			}
		})
	}
}

// runRow runs row r once with each program (r.runs() times) in fresh
// scratch directories and returns the differences found.
func runRow(t *testing.T, r Row, fio, gofio string) []string {
	t.Helper()
	root := scratchRoot(t)
	if r.Ext4 > 0 {
		root = mounttest.Ext4(t, r.Ext4)
	}
	var fo, gofioOut []*Outcome
	for i := 0; i < r.runs(); i++ {
		for _, p := range []struct {
			name, bin string
			out       *[]*Outcome
		}{{"fio", fio, &fo}, {"gofio", gofio, &gofioOut}} {
			dir := filepath.Join(root, fmt.Sprintf("%s-%d", p.name, i))
			if r.SameDir {
				dir = filepath.Join(root, fmt.Sprintf("run-%d", i))
				// The second program finds the first one's files:
				// start it on an empty directory.
				os.RemoveAll(dir)
			}
			o, err := runProgram(t, r, p.name, dir, func(dir string) (*Outcome, error) {
				return Run(context.Background(), p.name, p.bin, r, dir)
			})
			if err != nil {
				if p.name == "fio" && r.release != "" && r.Fio342 != "" {
					// fio 3.42 fails or hangs on the row: written down.
					t.Skipf("fio %s differs from fio 3.33 on this row (%s): %s\n  %v", r.release, r.Ref, r.Fio342, err)
				}
				t.Fatalf("%s: %v", r.Ref, err)
			}
			*p.out = append(*p.out, o)
		}
	}
	var diffs []string
	for i := range fo {
		for _, d := range r.Compare(fo[i], gofioOut[i]) {
			diffs = append(diffs, fmt.Sprintf("run %d: %s", i, d))
		}
	}
	if r.Check != nil {
		diffs = append(diffs, r.Check(fo, gofioOut)...)
	}
	return diffs
}

// runProgram runs row r once with program (fio or gofio) in the fresh
// directory dir, through run (Run with the program's binary). Where fio
// may hang on the row (Row.FioHangs), a fio run killed at its limit is
// started again in a fresh dir, and the test skips when every one of
// fioHangAttempts runs hung.
func runProgram(t *testing.T, r Row, program, dir string, run func(dir string) (*Outcome, error)) (*Outcome, error) {
	t.Helper()
	attempts := 1
	if program == "fio" && r.FioHangs != "" {
		attempts = fioHangAttempts
	}
	for a := 1; ; a++ {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		o, err := run(dir)
		if !errors.Is(err, ErrTimedOut) || attempts == 1 {
			return o, err
		}
		t.Logf("fio run %d of %d hung (%s): %v", a, attempts, r.FioHangs, err)
		if a == attempts {
			t.Skipf("%s: fio 3.33 hung in each of %d runs (%s): nothing to compare with", r.Ref, attempts, r.FioHangs)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// confirm runs a row's attempt up to attempts times and returns no
// differences as soon as one attempt has none, else every attempt's
// differences, each marked with its attempt. A Serial row's numbers depend
// on the CPUs (rates, elapsed time, completion timing), which other test
// packages share on CI: a defect differs in every attempt, a run the
// scheduler starved in one.
func confirm(attempts int, attempt func() []string, logf func(string, ...any)) []string {
	var diffs []string
	for a := 1; a <= attempts; a++ {
		d := attempt()
		if len(d) == 0 {
			return nil
		}
		if attempts > 1 {
			logf("attempt %d of %d: %d differences", a, attempts, len(d))
			for k := range d {
				d[k] = fmt.Sprintf("attempt %d: %s", a, d[k])
			}
		}
		diffs = append(diffs, d...)
	}
	return diffs
}
