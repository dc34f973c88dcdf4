package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// deliberate lists the corpus files where gofio differs from fio 3.33 on
// purpose (jobfile/DIFFERENCES.md): the --showcmd line or the accept/reject
// decision may differ for these and only these.
var deliberate = map[string]string{
	"diff_sqpoll.fio":                "sqpoll is gofio's alias for sqthread_poll",
	"diff_gofio_opts.fio":            "gofio-only options",
	"diff_size_spaces.fio":           "blanks around '=' are ignored (fio: size = 1m is 1 byte)",
	"diff_runtime_sec.fio":           "runtime=1sec is 1 s (fio: 1 us); same line, different meaning",
	"diff_bad_bs_fraction.fio":       "bs=1.5k is an error (fio: 1 byte)",
	"diff_bad_bs_dash.fio":           "bs=4k-16k is an error (fio: read 4k, write 16k)",
	"diff_bad_engine.fio":            "engines other than io_uring, null, psync are rejected",
	"diff_bad_registerfiles.fio":     "registerfiles with nrfiles != openfiles is checked at parse time",
	"diff_bad_include_missing.fio":   "a missing include is an error (fio reports it and exits 0)",
	"diff_bad_include_section.fio":   "a section in an include is an error (fio reports it and exits 0)",
	"diff_bad_numa_policy.fio":       "numa_mem_policy is checked at parse time (fio's --parse-only skips its callback)",
	"diff_bad_ignore_error.fio":      "ignore_error names are checked at parse time (fio's --parse-only skips its callback)",
	"diff_bad_trim_verify_write.fio": "trim verify in a job that writes but does not trim is refused at parse time (fio aborts on an assertion when it runs)",
}

// TestShowCmdCrossCheck runs the real fio --showcmd and --parse-only over
// the corpus and the examples and asserts the same output and the same
// accept/reject decision as gofio, except for the deliberate differences.
func TestShowCmdCrossCheck(t *testing.T) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("SKIP: fio is not installed; the fio cross-check did not run (.ci/run installs it)")
	}
	ver, _ := exec.Command(fio, "--version").Output()
	if !strings.HasPrefix(string(ver), "fio-3.33") {
		t.Logf("cross-checking against %s (the reference is fio-3.33)", strings.TrimSpace(string(ver)))
	}
	dir := filepath.Join("jobfile", "testdata", "corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.fio"))
	examples, _ := filepath.Glob(filepath.Join("examples", "*.fio"))
	env := map[string]string{"GOFIO_TEST_BS": "16k", "GOFIO_TEST_KEY": "rw"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var checked atomic.Int32
	for _, path := range append(files, examples...) {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			runFio := func(flag string) (string, bool) {
				cmd := exec.Command(fio, flag, filepath.Base(path))
				cmd.Dir = filepath.Dir(path)
				cmd.Env = append(os.Environ(), "GOFIO_TEST_BS=16k", "GOFIO_TEST_KEY=rw")
				out, err := cmd.Output()
				return string(out), err == nil
			}
			fioShow, fioShowOK := runFio("--showcmd")
			_, fioParseOK := runFio("--parse-only")
			// Includes resolve against the job file's directory, as in fio.
			in := jobfile.Input{Files: []string{path}, Getenv: getenv}
			var show bytes.Buffer
			showErr := jobfile.ShowCmd(in, &show)
			_, parseErr := jobfile.Parse(in)
			same := fioParseOK == (parseErr == nil) && (!fioShowOK || showErr != nil || fioShow == show.String())
			if why, ok := deliberate[base]; ok || strings.HasPrefix(path, "examples/randread") {
				// Where gofio's line is not fio's own (other files match
				// fio's byte for byte), fio must still run it.
				if showErr == nil && parseErr == nil {
					checkFioRuns(t, fio, path, show.String())
				}
				t.Logf("deliberate difference (%s): fio accepts=%v, gofio accepts=%v", why, fioParseOK, parseErr == nil)
				return
			}
			if !same {
				t.Errorf("fio and gofio disagree on %s\nfio --showcmd (ok=%v): %q\ngofio --showcmd (err=%v): %q\nfio --parse-only ok=%v, gofio --parse-only err=%v",
					path, fioShowOK, fioShow, showErr, show.String(), fioParseOK, parseErr)
			}
			checked.Add(1)
		})
	}
	t.Cleanup(func() {
		if n := checked.Load(); n < 30 {
			t.Errorf("only %d files cross-checked, want at least 30", n)
		}
	})
}

// checkFioRuns asserts that fio 3.33 accepts (--parse-only) every fio line
// of gofio's --showcmd output for path, whatever gofio options the job
// file has: they are on their own commented line, which the shell skips.
func checkFioRuns(t *testing.T, fio, path, show string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(show), "\n") {
		if strings.HasPrefix(line, jobfile.ShowCmdGofioPrefix) {
			continue
		}
		if !strings.HasPrefix(line, "fio ") {
			t.Errorf("%s: --showcmd line is neither fio's nor gofio's: %q", path, line)
			continue
		}
		cmd := exec.Command("sh", "-c", fio+" --parse-only "+strings.TrimPrefix(line, "fio "))
		cmd.Dir = filepath.Dir(path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: fio refuses gofio's --showcmd line: %v\n%s\n%s", path, err, line, out)
		}
	}
}
