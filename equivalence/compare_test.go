package equivalence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mustDoc(t *testing.T, s string) Doc {
	t.Helper()
	d, err := ParseDoc([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseDocSkipsPreamble(t *testing.T) {
	d := mustDoc(t, "fio: some warning\n{\"jobs\":[{\"jobname\":\"j\"}]}\n")
	if n := len(d.Jobs()); n != 1 {
		t.Fatalf("jobs = %d, want 1", n)
	}
	if _, err := ParseDoc([]byte("no json here")); err == nil {
		t.Fatal("ParseDoc accepted output without a document")
	}
}

func TestCompareJob(t *testing.T) {
	fio := mustDoc(t, `{"jobs":[{"read":{"total_ios":10,"io_bytes":40960,"short_ios":0,"drop_ios":0,"iops":100.0},
		"iodepth_level":{"1":100.000000,"2":0.0},"sync":{"total_ios":0}}]}`).Jobs()[0]
	same := mustDoc(t, `{"jobs":[{"read":{"total_ios":10,"io_bytes":40960,"short_ios":0,"drop_ios":0,"iops":104.0},
		"iodepth_level":{"1":100,"2":0},"sync":{"total_ios":0}}]}`).Jobs()[0]
	if d := CompareJob(fio, same, []string{"iodepth_level", "sync.total_ios"}, []Tol{{Path: "read.iops", Rel: 0.05}}, true); len(d) != 0 {
		t.Errorf("equal jobs differ: %v", d)
	}
	other := mustDoc(t, `{"jobs":[{"read":{"total_ios":11,"io_bytes":40960,"short_ios":0,"drop_ios":0,"iops":110.0},
		"iodepth_level":{"1":99.9,"2":0.1},"sync":{"total_ios":3}}]}`).Jobs()[0]
	d := CompareJob(fio, other, []string{"iodepth_level", "sync.total_ios"}, []Tol{{Path: "read.iops", Rel: 0.05}}, true)
	want := []string{"iodepth_level:", "sync.total_ios: fio 0, gofio 3", "read.total_ios: fio 10, gofio 11", "read.iops: fio 100, gofio 110"}
	if len(d) != len(want) {
		t.Fatalf("differences = %q, want %d", d, len(want))
	}
	all := strings.Join(d, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("differences %q lack %q", all, w)
		}
	}
}

func TestTolWithin(t *testing.T) {
	tol := Tol{Path: "x", Rel: 0.1, Abs: 1}
	for _, c := range []struct {
		f, g float64
		ok   bool
	}{{100, 111, true}, {100, 111.5, false}, {0, 1, true}, {0, 1.5, false}, {-10, -12, true}} {
		if got := tol.Within(c.f, c.g); got != c.ok {
			t.Errorf("Within(%g, %g) = %v, want %v", c.f, c.g, got, c.ok)
		}
	}
}

func TestCompareKeys(t *testing.T) {
	fio := mustDoc(t, `{"global options":{"bs":"4k"},"jobs":[{"read":{"clat_ns":{"percentile":{"1.0":5}}}}]}`)
	gofio := mustDoc(t, `{"jobs":[{"gofio_tw":{"x":1},"read":{"clat_ns":{"percentile":{"2.0":5}},"extra":1}}]}`)
	d := CompareKeys(fio, gofio, nil)
	if len(d) != 2 || !strings.Contains(d[0], "/global options/bs") || !strings.Contains(d[1], "/jobs[]/read/extra") {
		t.Errorf("CompareKeys = %q", d)
	}
	if d := CompareKeys(fio, gofio, []string{"/global options", "/jobs[]/read/extra"}); len(d) != 0 {
		t.Errorf("ignored keys still differ: %q", d)
	}
}

func TestCompareFiles(t *testing.T) {
	d := CompareFiles(map[string]int64{"j.0.0": 10, "j.0.1": 5}, map[string]int64{"j.0.0": 12, "k": 1})
	want := []string{"file j.0.0: fio 10 bytes, gofio 12", "file j.0.1: only fio wrote it (5 bytes)", "file k: only gofio wrote it (1 bytes)"}
	if strings.Join(d, "|") != strings.Join(want, "|") {
		t.Errorf("CompareFiles = %q, want %q", d, want)
	}
}

func TestRowCommand(t *testing.T) {
	r := Row{Args: []string{"--rw=read"}}
	if got := strings.Join(r.Command("/d"), " "); got != "--name=j --directory=/d --output-format=json --rw=read" {
		t.Errorf("Command = %q", got)
	}
	r = Row{JobFile: "[j]\n", Args: []string{"--eta=never"}}
	if got := strings.Join(r.Command("/d"), " "); got != "--output-format=json --eta=never job.fio" {
		t.Errorf("Command = %q", got)
	}
}

// TestConfirm: a difference in one attempt of a Serial row is retried and
// forgiven when a later attempt matches; one in every attempt fails with
// all of them reported; a non-Serial row gets one attempt.
func TestConfirm(t *testing.T) {
	seq := func(results ...[]string) (func() []string, *int) {
		n := 0
		return func() []string { n++; return append([]string(nil), results[n-1]...) }, &n
	}
	nolog := func(string, ...any) {}
	f, n := seq([]string{"read.iops: 950"}, nil, []string{"never run"})
	if d := confirm(3, f, nolog); d != nil || *n != 2 {
		t.Errorf("starved then matching: %q after %d attempts; want none after 2", d, *n)
	}
	f, n = seq([]string{"a"}, []string{"b"}, []string{"c"})
	if d := confirm(3, f, nolog); !slices.Equal(d, []string{"attempt 1: a", "attempt 2: b", "attempt 3: c"}) || *n != 3 {
		t.Errorf("differing each time: %q after %d attempts; want all three reported", d, *n)
	}
	f, n = seq([]string{"a"}, nil)
	if d := confirm(Row{}.attempts(), f, nolog); !slices.Equal(d, []string{"a"}) || *n != 1 {
		t.Errorf("non-Serial row: %q after %d attempts; want the one difference, unmarked", d, *n)
	}
	if (Row{Serial: true}).attempts() != serialAttempts {
		t.Errorf("a Serial row gets %d attempts, want %d", (Row{Serial: true}).attempts(), serialAttempts)
	}
}

// TestFioVersionSkip: the suite runs only against fio 3.33, and says why
// it skips otherwise.
func TestFioVersionSkip(t *testing.T) {
	if s := fioVersionSkip("/usr/bin/fio", "fio-3.33\n", nil); s != "" {
		t.Errorf("fio-3.33 skipped: %s", s)
	}
	for _, tt := range []struct {
		out  string
		err  error
		want string
	}{
		{"fio-3.36\n", nil, `/usr/bin/fio is "fio-3.36", not fio-3.33: skipping`},
		{"fio-3.33-12-gabcdef\n", nil, `is "fio-3.33-12-gabcdef", not fio-3.33`},
		{"", errors.New("exit status 1"), "/usr/bin/fio --version: exit status 1: skipping the equivalence suite, which needs fio-3.33"},
	} {
		if s := fioVersionSkip("/usr/bin/fio", tt.out, tt.err); !strings.Contains(s, tt.want) {
			t.Errorf("%q %v: %q, want %q", tt.out, tt.err, s, tt.want)
		}
	}
}

// TestRunProgramFioHangs checks the handling of a row where fio may hang
// (Row.FioHangs): a fio run killed at its limit is started again in a
// fresh directory, the row skips when each of fioHangAttempts runs hung,
// and gofio's runs, or rows without FioHangs, are not retried.
func TestRunProgramFioHangs(t *testing.T) {
	hangs := Row{Name: "h", FioHangs: "test"}
	fake := func(hung int, calls *int) func(string) (*Outcome, error) {
		return func(dir string) (*Outcome, error) {
			*calls++
			ents, err := os.ReadDir(dir)
			if err != nil || len(ents) != 0 {
				t.Errorf("run %d: dir %v, %v: want a fresh empty dir", *calls, ents, err)
			}
			if err := os.WriteFile(filepath.Join(dir, "left"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if *calls <= hung {
				return nil, fmt.Errorf("fio: %w", ErrTimedOut)
			}
			return &Outcome{Program: "fio"}, nil
		}
	}
	calls := 0
	if o, err := runProgram(t, hangs, "fio", filepath.Join(t.TempDir(), "d"), fake(fioHangAttempts-1, &calls)); err != nil || o == nil || calls != fioHangAttempts {
		t.Errorf("fio hung %d times: %v, %v after %d runs; want the outcome of run %d", fioHangAttempts-1, o, err, calls, fioHangAttempts)
	}
	calls = 0
	ok := t.Run("always", func(t *testing.T) {
		runProgram(t, hangs, "fio", filepath.Join(t.TempDir(), "d"), fake(fioHangAttempts, &calls))
		t.Error("runProgram returned although fio hung every time")
	})
	if !ok || calls != fioHangAttempts {
		t.Errorf("fio hung every time: subtest ok=%v after %d runs; want a skip after %d", ok, calls, fioHangAttempts)
	}
	for _, c := range []struct {
		r       Row
		program string
	}{{hangs, "gofio"}, {Row{Name: "n"}, "fio"}} {
		calls = 0
		if _, err := runProgram(t, c.r, c.program, filepath.Join(t.TempDir(), "d"), fake(1, &calls)); !errors.Is(err, ErrTimedOut) || calls != 1 {
			t.Errorf("%s on row %q: %v after %d runs; want ErrTimedOut after 1", c.program, c.r.Name, err, calls)
		}
	}
	if hangs.timeout("fio") != fioHangTimeout || hangs.timeout("gofio") != RunTimeout || (Row{}).timeout("fio") != RunTimeout {
		t.Errorf("timeouts: fio %v, gofio %v, fio without FioHangs %v", hangs.timeout("fio"), hangs.timeout("gofio"), Row{}.timeout("fio"))
	}
}

// TestRunTimedOut checks that Run says ErrTimedOut when the program ran
// past its context's deadline and was killed.
func TestRunTimedOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The program starts a child in a session of its own, as fio's job
	// processes are: it must be killed too.
	tmp := t.TempDir()
	hang, pidFile := filepath.Join(tmp, "hang"), filepath.Join(tmp, "child.pid")
	script := "#!/bin/sh\nsetsid sleep 60 &\necho $! > " + pidFile + "\nexec sleep 60\n"
	if err := os.WriteFile(hang, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Run(ctx, "fio", hang, Row{JobFile: "x"}, t.TempDir())
	if !errors.Is(err, ErrTimedOut) {
		t.Errorf("Run of a sleeping program: %v; want ErrTimedOut", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// Gone, or a zombie waiting for init to reap it.
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if i == 50 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program's child %d in its own session outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFio342DifferencesNameRows: every difference written down for fio
// 3.42 belongs to a row of the table, and the rows of fio's newer options
// run only against a newer fio.
func TestFio342DifferencesNameRows(t *testing.T) {
	names := map[string]bool{}
	for _, r := range Rows() {
		names[r.Name] = true
		if r.Since != "" && r.skipAgainst("") == "" {
			t.Errorf("%s (since fio %s) would run against fio 3.33", r.Name, r.Since)
		}
	}
	for name := range fio342Differences {
		if !names[name] {
			t.Errorf("fio342Differences names %q, which is no row", name)
		}
	}
	for name := range fio342Hangs {
		if fio342Differences[name] == "" {
			t.Errorf("fio342Hangs names %q without a written-down difference", name)
		}
	}
	if newerRelease("fio-3.42\n") != "3.42" || newerRelease("fio-3.33") != "" || newerRelease("fio-3.41") != "" {
		t.Error("newerRelease: want 3.42 for fio-3.42 only")
	}
}

// TestSeqDiffs checks the sequence comparison the per-I/O checks share:
// the counts when they differ, and the first item that differs, counted
// from 1 and quoted when it is a line.
func TestSeqDiffs(t *testing.T) {
	if d := seqDiffs(0, "l_lat.1.log offsets", "I/O", []uint64{0, 4096}, []uint64{0, 4096}); len(d) != 0 {
		t.Errorf("equal sequences: %q", d)
	}
	got := seqDiffs(2, "l_lat.1.log offsets", "I/O", []uint64{0, 4096, 8192}, []uint64{0, 8192})
	want := []string{"run 2: l_lat.1.log offsets: fio has 3 I/Os, gofio 2", "run 2: l_lat.1.log offsets: I/O 2: fio 4096, gofio 8192"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = seqDiffs(0, "io.log", "line", []string{"a.dat add", "a.dat open"}, []string{"a.dat add", "a.dat  open"})
	if want := []string{`run 0: io.log: line 2: fio "a.dat open", gofio "a.dat  open"`}; !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
