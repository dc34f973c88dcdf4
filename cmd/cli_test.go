package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// runCmd runs a whole gofio command in-process.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCmdWith(t, nil, args...)
}

// runCmdWith runs a whole gofio command in-process with core as the run
// core (nil: run.Run).
func runCmdWith(t *testing.T, core func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := &State{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) (string, bool) { return "", false }, RunCore: core, Canary: steadyCanary(1)}
	code := st.command(context.Background(), append([]string{"gofio"}, args...))
	return code, out.String(), errb.String()
}

func TestCLI(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.fio")
	if err := os.WriteFile(good, []byte("[j]\nioengine=null\nsize=1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.fio")
	if err := os.WriteFile(bad, []byte("[j]\nioengine=null\nsqthread_pol=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		// Help and version exit 0 and print to stdout.
		{"version", []string{"--version"}, ExitOK, "gofio-", ""},
		{"help", []string{"--help"}, ExitOK, "--output-format", ""},
		{"cmdhelp one", []string{"--cmdhelp=bs"}, ExitOK, "alias: blocksize", ""},
		{"cmdhelp all", []string{"--cmdhelp"}, ExitOK, "iodepth", ""},
		{"enghelp", []string{"--enghelp=io_uring"}, ExitOK, "sqthread_poll", ""},
		{"enghelp list", []string{"--enghelp"}, ExitOK, "Available IO engines", ""},
		// --showcmd prints fio's line; options may follow the job file.
		{"showcmd", []string{good, "--showcmd"}, ExitOK, "fio --name=j --ioengine=null --size=1m \n", ""},
		{"showcmd with --set", []string{"--showcmd", "--set", "bs=8k", good}, ExitOK, "--size=1m --bs=8k \n", ""},
		// A single dash and a unique prefix work, as with getopt_long_only.
		{"prefix job option", []string{"-parse-only", "--name=x", "--ioengine=null", "--runt=1", "--size=1m"}, ExitOK, "", ""},
		{"ambiguous prefix", []string{"--sqthread_pol=1", good}, ExitBadInput, "", "ambiguous"},
		{"unknown option", []string{"--sqpol2=1", good}, ExitBadInput, "", "did you mean"},
		{"bad job file", []string{"--parse-only", bad}, ExitBadInput, "", "bad.fio:3: bad option <sqthread_pol=1>: did you mean sqthread_poll?"},
		{"missing job file", []string{"--parse-only", filepath.Join(dir, "nope.fio")}, ExitBadInput, "", "does not exist"},
		{"bad output format", []string{"--output-format=xml", good}, ExitBadInput, "", "invalid --output-format"},
		{"comma output formats", []string{"--output-format=json,terse", "--parse-only", good}, ExitOK, "", ""},
		{"bad eta", []string{"--eta=sometimes", good}, ExitBadInput, "", "invalid --eta"},
		{"section global", []string{"--section=global", good}, ExitBadInput, "", "can't use global"},
		{"bad sweep", []string{"--sweep=iodepth", good}, ExitBadInput, "", "KEY=LIST"},
		{"no jobs", nil, ExitBadInput, "", "no job(s) defined"},
		// fio 3.33 exits 0 here; gofio fails a check that selects no job (jobfile/DIFFERENCES.md).
		{"section selects nothing", []string{"--section=nosuch", "--parse-only", good}, ExitBadInput, "", "no job(s) defined"},
		{"flag with argument", []string{"--showcmd=x", good}, ExitBadInput, "", "doesn't allow an argument"},
		{"missing argument", []string{good, "--output"}, ExitBadInput, "", "requires an argument"},
		// The patch's own job file parses (fio rejects its sqpoll=1).
		{"patch job", []string{"--parse-only", "examples/randread.fio"}, ExitOK, "", ""},
		// --set wins, and is checked like any option.
		{"bad set", []string{"--parse-only", "--set", "iodepth=0", good}, ExitBadInput, "", "--set: iodepth=0: min value out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errs, tt.stderr) {
				t.Errorf("gofio %v = %d\nstdout: %q\nstderr: %q\nwant %d, stdout ~ %q, stderr ~ %q",
					tt.args, code, out, errs, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestSplitArgv checks the split of argv into gofio flags, job options and
// job files.
func TestSplitArgv(t *testing.T) {
	sp, err := splitArgv([]string{"gofio", "a.fio", "--name", "x", "-rw=read", "--time_based", "--output", "o.json",
		"--cmdhelp", "-", "--set=bs=4k", "--", "--weird.fio"})
	if err != nil {
		t.Fatal(err)
	}
	want := splitArgs{
		flags:   []string{"--output=o.json", "--cmdhelp=all", "--set=bs=4k"},
		jobOpts: []string{"--name=x", "--rw=read", "--time_based"},
		files:   []string{"a.fio", "-", "--weird.fio"},
	}
	if strings.Join(sp.flags, " ") != strings.Join(want.flags, " ") ||
		strings.Join(sp.jobOpts, " ") != strings.Join(want.jobOpts, " ") ||
		strings.Join(sp.files, " ") != strings.Join(want.files, " ") {
		t.Errorf("splitArgv = %+v, want %+v", *sp, want)
	}
}

// TestFlagTable checks that splitArgv and the help text both come from
// flagTable: every flag is listed in --help, and splitArgv treats it as the
// table says (bool flags take no value, optional ones take their bare
// value, the rest require one).
func TestFlagTable(t *testing.T) {
	_, help, _ := runCmd(t, "--help")
	for _, f := range flagTable() {
		name := f.Names()[0]
		if !strings.Contains(help, "--"+name) {
			t.Errorf("--help does not list --%s", name)
		}
		sp, err := splitArgv([]string{"gofio", "--" + name})
		switch f.arg() {
		case argNone:
			if err != nil || len(sp.flags) != 1 || sp.flags[0] != "--"+name {
				t.Errorf("--%s: %v, %v; want the bare flag", name, sp, err)
			}
			if _, err := splitArgv([]string{"gofio", "--" + name + "=x"}); err == nil {
				t.Errorf("--%s=x: no error for a flag that takes no value", name)
			}
		case argOptional:
			if err != nil || len(sp.flags) != 1 || sp.flags[0] != "--"+name+"="+f.bare {
				t.Errorf("--%s: %v, %v; want --%s=%s", name, sp, err, name, f.bare)
			}
		case argRequired:
			if err == nil || !strings.Contains(err.Error(), "requires an argument") {
				t.Errorf("--%s with no value: %v; want a missing-argument error", name, err)
			}
		}
	}
}

// TestSplitArgvCompare checks --compare's optional value: bare it is
// tw_priority=1,0; a following KEY=A,B is its value; a following job file
// (even one whose name has that shape, if it exists) is not.
func TestSplitArgvCompare(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "x=1,2")
	if err := os.WriteFile(odd, []byte("[j]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args         []string
		flags, files string
	}{
		{[]string{"--compare", "a.fio"}, "--compare=tw_priority=1,0", "a.fio"},
		{[]string{"--compare", "ioengine=io_uring,libaio", "a.fio"}, "--compare=ioengine=io_uring,libaio", "a.fio"},
		{[]string{"--compare=sqpoll=1,0", "a.fio"}, "--compare=sqpoll=1,0", "a.fio"},
		{[]string{"--compare", odd}, "--compare=tw_priority=1,0", odd},
		{[]string{"a.fio", "--compare"}, "--compare=tw_priority=1,0", "a.fio"},
	}
	for _, tt := range tests {
		sp, err := splitArgv(append([]string{"gofio"}, tt.args...))
		if err != nil {
			t.Fatal(err)
		}
		if f, j := strings.Join(sp.flags, " "), strings.Join(sp.files, " "); f != tt.flags || j != tt.files {
			t.Errorf("%v: flags %q files %q; want %q %q", tt.args, f, j, tt.flags, tt.files)
		}
	}
}

// TestSplitArgvHostname: --hostname after a --name= is the net engine's
// job option, as on fio's command line; before any --name= it is gofio's
// flag, the host name results carry.
func TestSplitArgvHostname(t *testing.T) {
	sp, err := splitArgv([]string{"gofio", "--hostname=node-a", "--name=s", "--ioengine=net", "--hostname", "127.0.0.1", "--port=8765"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sp.flags, " "); got != "--hostname=node-a" {
		t.Errorf("flags %q; want --hostname=node-a", got)
	}
	if got := strings.Join(sp.jobOpts, " "); got != "--name=s --ioengine=net --hostname=127.0.0.1 --port=8765" {
		t.Errorf("job options %q; want the net job's hostname", got)
	}
}

// TestSplitArgvProfile checks that tiobench's own options are taken by
// their exact names under --profile=tiobench (--dir is otherwise an
// ambiguous prefix of --direct and --directory).
func TestSplitArgvProfile(t *testing.T) {
	sp, err := splitArgv([]string{"gofio", "--dir", "/x", "--profile=tiobench", "--size=8", "--runt=5"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(sp.jobOpts, " "), "--dir=/x --profile=tiobench --size=8 --runtime=5"; got != want {
		t.Errorf("jobOpts %q, want %q", got, want)
	}
	if _, err := splitArgv([]string{"gofio", "--dir=/x"}); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("--dir without --profile: %v, want ambiguous", err)
	}
}

// TestProfileTiobenchRuns runs --profile=tiobench in-process on a
// scratch directory: four jobs, each moving the profile's size once, on
// the profile's four files, in four stonewalled groups.
func TestProfileTiobenchRuns(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCmd(t, "--profile=tiobench", "--size=1", "--dir="+dir, "--output-format=terse")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"seqwrite", "randwrite", "seqread", "randread"}
	if len(lines) != len(want) {
		t.Fatalf("%d terse lines, want 4:\n%s", len(lines), out)
	}
	for i, l := range lines {
		f := strings.Split(l, ";")
		// terse v3: field 3 is the job name, 6 the read KiB, 47 the
		// write KiB.
		kib := f[5]
		if i < 2 {
			kib = f[46]
		}
		if f[2] != want[i] || kib != "1024" {
			t.Errorf("line %d: job %s moved %s KiB, want %s 1024 KiB", i, f[2], kib, want[i])
		}
	}
	for _, n := range []string{".fio.tio.1", ".fio.tio.2", ".fio.tio.3", ".fio.tio.4"} {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Size() != 256<<10 {
			t.Errorf("%s: %v", n, err)
		}
	}
}
