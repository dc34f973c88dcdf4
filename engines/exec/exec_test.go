package exec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

func TestArgs(t *testing.T) {
	got := Args("-c package  -qS --interval %r  %n-%r", 30*time.Second, "mon")
	want := []string{"-c", "package", "-qS", "--interval", "30", "mon-30"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
	if got := Args("", time.Second, "x"); len(got) != 0 {
		t.Errorf("no arguments gave %q", got)
	}
}

// TestRunProgram runs a program with std_redirect, then checks that the
// runtime's end sends it SIGTERM and Close reaps it.
func TestRunProgram(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	// fio splits arguments on blanks only, so the shell code is a script.
	script := filepath.Join(dir, "s.sh")
	if err := os.WriteFile(script, []byte("echo started \"$@\"\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	job := &jobfile.Job{Name: "mon", Runtime: 100 * time.Millisecond}
	job.SetEngineConfig(&Options{Program: "/bin/sh", Arguments: script + " %n %r", StdRedirect: true})
	eng, err := Open(engines.Setup{Job: job, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := eng.(*Engine)
	var slept time.Duration
	e.sleep = func(d time.Duration) { slept += d; time.Sleep(d) }
	out := make([]engines.Completion, 1)
	for i := 0; i < 4; i++ {
		e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: make([]byte, 512)})
		if n, err := e.Submit(); n != 1 || err != nil {
			t.Fatalf("Submit = %d, %v", n, err)
		}
		if e.Reap(out, 1); out[0].Res != 512 {
			t.Fatalf("request %d: res %d", i, out[0].Res)
		}
	}
	if !e.termed || slept < 3*pause {
		t.Errorf("termed %v after %v of pauses", e.termed, slept)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	stdout, _ := os.ReadFile(filepath.Join(dir, "mon.stdout"))
	if strings.TrimSpace(string(stdout)) != "started mon 0" {
		t.Errorf("mon.stdout = %q", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "mon.stderr")); err != nil {
		t.Error(err)
	}
}

func TestNeedsProgram(t *testing.T) {
	if _, err := Open(engines.Setup{Job: &jobfile.Job{}, Depth: 1}); err == nil {
		t.Error("no program accepted")
	}
}

// TestRuntimeFromProgramStart: the runtime counts from the job's first
// request, which starts the program (fio's td->start), not from the
// engine's open, which comes before the run group starts (and before
// other jobs lay out their files): a job that starts 10 s after its
// engine opened still lets its program run for the whole runtime. Once it
// has passed, the program gets SIGTERM and grace_time; a program reaped
// after it exited is not signalled, and Close waits for none.
func TestRuntimeFromProgramStart(t *testing.T) {
	job := &jobfile.Job{Name: "mon", Runtime: time.Second}
	job.SetEngineConfig(&Options{Program: "/bin/sleep", Arguments: "30", GraceTime: 2})
	eng, err := Open(engines.Setup{Job: job, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := eng.(*Engine)
	clock := time.Now()
	var slept time.Duration
	e.now = func() time.Time { return clock }
	e.sleep = func(d time.Duration) { slept += d; clock = clock.Add(d) }
	request := func() {
		t.Helper()
		out := make([]engines.Completion, 1)
		e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: make([]byte, 512)})
		e.Submit()
		if e.Reap(out, 1); out[0].Res != 512 {
			t.Fatalf("res %d", out[0].Res)
		}
	}
	clock = clock.Add(10 * time.Second) // the group starts long after open
	request()                           // starts the program
	request()
	if e.termed || slept != pause {
		t.Fatalf("50 ms into a 1 s runtime: termed %v, slept %v", e.termed, slept)
	}
	clock = clock.Add(time.Second)
	request()
	if !e.termed || slept != 2*pause+2*time.Second {
		t.Errorf("past the runtime: termed %v, slept %v; want SIGTERM and the 2 s grace", e.termed, slept)
	}
	select {
	case <-e.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("sleep 30 did not exit on SIGTERM")
	}
	if ps := e.cmd.ProcessState; ps == nil || ps.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("program state %v; want ended by SIGTERM", ps)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}
