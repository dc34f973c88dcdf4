package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/faultfs"
)

// TestWatchSignals drives main's signal rules with a fake channel: the
// first signal cancels the run and nothing exits; a second one exits with
// ExitInterrupted at once; a closed done ends the watcher without exiting.
func TestWatchSignals(t *testing.T) {
	tests := []struct {
		name    string
		signals []os.Signal
		window  time.Duration
		cancels int
		exits   []int
		stderr  []string
	}{
		// One SIGINT: the run is cancelled and finishes on its own.
		{"SIGINT", []os.Signal{os.Interrupt}, 0, 1, nil, []string{"terminating on signal SIGINT"}},
		// One SIGTERM: the same.
		{"SIGTERM", []os.Signal{syscall.SIGTERM}, 0, 1, nil, []string{"terminating on signal SIGTERM"}},
		// A second SIGINT exits at once, without a second cancel.
		{"SIGINT twice", []os.Signal{os.Interrupt, os.Interrupt}, 0, 1, []int{ExitInterrupted},
			[]string{"terminating on signal SIGINT", "second signal SIGINT, exiting at once"}},
		// SIGTERM then SIGINT: the second is a second signal all the same.
		{"SIGTERM then SIGINT", []os.Signal{syscall.SIGTERM, os.Interrupt}, 0, 1, []int{ExitInterrupted},
			[]string{"terminating on signal SIGTERM", "second signal SIGINT"}},
		// No signal: nothing happens.
		{"none", nil, 0, 0, nil, nil},
		// The same SIGINT delivered twice at once (timeout(1) sends it to
		// gofio, then to its process group): one request, no exit.
		{"SIGINT delivered twice", []os.Signal{os.Interrupt, os.Interrupt}, time.Hour, 1, nil, []string{"terminating on signal SIGINT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := make(chan os.Signal, len(tt.signals))
			for _, s := range tt.signals {
				sigs <- s
			}
			done := make(chan struct{})
			finished := make(chan struct{})
			var stderr bytes.Buffer
			cancels := 0
			var exits []int
			go func() {
				defer close(finished)
				watchSignals(sigs, done, func() { cancels++ }, &stderr, func(c int) { exits = append(exits, c) }, tt.window)
			}()
			if len(tt.exits) == 0 {
				// Let the watcher take every queued signal, then stop it.
				for len(sigs) > 0 {
					time.Sleep(time.Millisecond)
				}
				close(done)
			}
			<-finished
			if cancels != tt.cancels || len(exits) != len(tt.exits) || (len(exits) > 0 && exits[0] != tt.exits[0]) {
				t.Errorf("cancels = %d, exits = %v; want %d, %v", cancels, exits, tt.cancels, tt.exits)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q lacks %q", stderr.String(), want)
				}
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writing process and a polling
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// process is a gofio binary running in the background.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	err            error
}

// startGofio starts the gofio binary in dir. The process is killed when
// the test ends if it is still running.
func startGofio(t *testing.T, dir string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(gofioBinary(t), args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitStderr waits until stderr contains s, failing the test if the
// process ends or a minute passes first.
func (p *process) waitStderr(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !strings.Contains(p.stderr.String(), s) {
		select {
		case <-p.done:
			t.Fatalf("gofio ended (%v) before printing %q\nstdout: %s\nstderr: %s", p.err, s, p.stdout.String(), p.stderr.String())
		case <-deadline:
			t.Fatalf("no %q on stderr within a minute\nstderr: %s", s, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// signal sends sig to the process.
func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("send %v: %v", sig, err)
	}
}

// wait waits for the process to end (a minute at most) and returns its
// exit code; it then checks that the process is gone.
func (p *process) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatalf("gofio still runs a minute after the signal\nstderr: %s", p.stderr.String())
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		t.Fatalf("wait: %v", p.err)
	}
	if err := syscall.Kill(p.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still exists after exiting (kill 0: %v)", p.cmd.Process.Pid, err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// signalJob is a 60 s time_based io_uring job on a scratch file: a
// signal is the only way it ends within the test's time.
func signalJob(t *testing.T, scr string) string {
	return writeJob(t, scr, "signal.fio", "[sig]\nioengine=io_uring\nrw=randread\nbs=4k\nsize=4m\niodepth=8\n"+
		"time_based\nruntime=60s\nfilename="+filepath.Join(scr, "data")+"\n")
}

// TestSignalPartialReport interrupts a running time_based io_uring job
// with SIGINT (normal output) and SIGTERM (JSON output): gofio stops, prints
// the report of what ran, exits 130 and leaves no file behind but the
// job's own scratch file.
func TestSignalPartialReport(t *testing.T) {
	for _, tc := range []struct {
		sig    syscall.Signal
		format string
	}{
		{syscall.SIGINT, "normal"},
		{syscall.SIGTERM, "json"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			scr, cwd := scratchDir(t), t.TempDir()
			job := signalJob(t, scr)
			p := startGofio(t, cwd, "--eta=always", "--output-format="+tc.format, job)
			p.waitStderr(t, "Jobs: 1") // the ETA line: the job is running
			start := time.Now()
			p.signal(t, tc.sig)
			code := p.wait(t)
			stdout, stderr := p.stdout.String(), p.stderr.String()
			if code != ExitInterrupted {
				t.Errorf("exit %d, want %d\nstderr: %s", code, ExitInterrupted, stderr)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("gofio took %v to stop after %v", took, tc.sig)
			}
			name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig]
			if !strings.Contains(stderr, "terminating on signal "+name) {
				t.Errorf("stderr lacks the signal note:\n%s", stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr:\n%s", stderr)
			}
			switch tc.format {
			case "normal":
				for _, want := range []string{"sig: (groupid=0, jobs=1): err= 0", "read: IOPS=", "Run status group 0 (all jobs):"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("partial report lacks %q:\n%s", want, stdout)
					}
				}
			case "json":
				job := jsonJobs(t, decodeJSON(t, "stdout", []byte(stdout)))[0]
				if n := num(t, job, "read", "total_ios"); n <= 0 {
					t.Errorf("partial report: read total_ios = %v, want > 0", n)
				}
				if ms := num(t, job, "read", "runtime"); ms >= 60000 {
					t.Errorf("partial report: read runtime = %v ms, want less than the job's 60 s", ms)
				}
			}
			if names := listDir(t, scr); strings.Join(names, " ") != "data signal.fio" {
				t.Errorf("scratch directory holds %v, want only data and signal.fio", names)
			}
			if names := listDir(t, cwd); len(names) != 0 {
				t.Errorf("working directory holds %v, want nothing", names)
			}
		})
	}
}

// TestSecondSignalExitsAtOnce checks that a second SIGINT ends gofio at
// once even when the first can't finish: the report goes to --output, a
// FIFO whose buffer the test has filled and nobody reads (JSON, so no
// header is written before the run). After the first SIGINT gofio blocks
// writing its report for ever, and only main's second-signal rule can end
// it.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	scr, cwd := scratchDir(t), t.TempDir()
	job := signalJob(t, scr)
	fifo := filepath.Join(scr, "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened read-write, the FIFO neither blocks the open nor breaks the
	// pipe; fill its buffer so the report can't be written.
	f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := syscall.Write(int(f.Fd()), chunk); err != nil {
			if errors.Is(err, syscall.EAGAIN) {
				break
			}
			t.Fatal(err)
		}
	}
	p := startGofio(t, cwd, "--eta=always", "--output-format=json", "--output="+fifo, job)
	p.waitStderr(t, "Jobs: 1")
	p.signal(t, syscall.SIGINT)
	p.waitStderr(t, "terminating on signal SIGINT")
	time.Sleep(3 * sameSignalWindow) // a second request, not the first delivered twice
	p.signal(t, syscall.SIGINT)
	code := p.wait(t)
	stderr := p.stderr.String()
	if code != ExitInterrupted {
		t.Errorf("exit %d, want %d\nstderr: %s", code, ExitInterrupted, stderr)
	}
	if !strings.Contains(stderr, "second signal SIGINT, exiting at once") {
		t.Errorf("stderr lacks the second-signal note:\n%s", stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace on stderr:\n%s", stderr)
	}
	if names := listDir(t, scr); strings.Join(names, " ") != "data report.fifo signal.fio" {
		t.Errorf("scratch directory holds %v, want only data, report.fifo and signal.fio", names)
	}
	if names := listDir(t, cwd); len(names) != 0 {
		t.Errorf("working directory holds %v, want nothing", names)
	}
}

// TestSignalDuringLayout interrupts, with SIGINT and with SIGTERM, a read
// job laying out its 64 MiB file on a FUSE target that sleeps 20 ms on
// every 128 KiB write: the first signal ends gofio within a second, exit
// 130, and the partial file it created is gone, the warning and the JSON
// report's engine_notes saying so. The same SIGINT sent twice at once, as
// timeout(1) sends it (to gofio, then to its process group), is one
// request: the same clean end, no second-signal exit.
func TestSignalDuringLayout(t *testing.T) {
	for _, tc := range []struct {
		sig   syscall.Signal
		sends int
	}{{syscall.SIGINT, 1}, {syscall.SIGTERM, 1}, {syscall.SIGINT, 2}} {
		sig := tc.sig
		t.Run(fmt.Sprintf("%v x%d", sig, tc.sends), func(t *testing.T) {
			x := faultfs.MountT(t, faultfs.Options{Absent: true})
			x.Delay(faultfs.Write, 20*time.Millisecond, 1)
			cwd := t.TempDir()
			p := startGofio(t, cwd, "--output-format=json", "--name=slow", "--rw=read", "--ioengine=psync",
				"--size=64m", "--fallocate=none", "--filename="+x.Path())
			deadline := time.Now().Add(time.Minute)
			for x.Counts().Writes < 4 {
				if time.Now().After(deadline) {
					t.Fatalf("the layout did not start within a minute\nstderr: %s", p.stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			start := time.Now()
			for range tc.sends {
				p.signal(t, sig)
			}
			code := p.wait(t)
			took := time.Since(start)
			stdout, stderr := p.stdout.String(), p.stderr.String()
			if code != ExitInterrupted {
				t.Errorf("exit %d, want %d\nstderr: %s", code, ExitInterrupted, stderr)
			}
			if took > time.Second {
				t.Errorf("gofio took %v to end after %v during the layout", took, sig)
			}
			if _, err := os.Stat(x.Path()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the partial file is still there (%v)", err)
			}
			c := x.Counts()
			if c.Creates != 1 || c.Unlinks != 1 || c.WriteBytes >= 64<<20 {
				t.Errorf("faultfs counts %+v; want the file created, written in part and removed", c)
			}
			note := "removed " + x.Path() + ", which this run created and whose layout stopped"
			if !strings.Contains(stderr, note) || strings.Contains(stderr, "second signal") {
				t.Errorf("stderr lacks the removal, or needed a second signal:\n%s", stderr)
			}
			job := jsonJobs(t, decodeJSON(t, "stdout", []byte(stdout)))[0]
			extras, _ := job["gofio"].(map[string]any)
			if notes, _ := extras["engine_notes"].([]any); len(notes) != 1 || notes[0] != note {
				t.Errorf("gofio.engine_notes %v, want [%q]", extras["engine_notes"], note)
			}
			if names := listDir(t, cwd); len(names) != 0 {
				t.Errorf("working directory holds %v, want nothing", names)
			}
		})
	}
}
