// Package exec is gofio's exec engine, fio's engines/exec.c: the job runs
// a program in the background for its runtime, typically a monitor
// (turbostat) or a load next to the I/O jobs. The first request starts
// program with arguments split on blanks, %r replaced by the job's
// runtime in whole seconds and %n by its name; with std_redirect=1 (the
// default) its stdout and stderr go to NAME.stdout and NAME.stderr in the
// working directory, else to gofio's own. Every later request waits 50 ms
// and, once the runtime has passed since the program started (fio's
// td->start: the job's first request starts both), sends the program
// SIGTERM and allows it grace_time seconds, as fio does even when the
// program has already exited; closing the engine sends SIGKILL to a
// program still running. A goroutine waits for the program from its start,
// so it is reaped as soon as it exits.
//
// Like fio's FIO_NOIO engine, requests count as I/Os but move no bytes,
// and the job thinks 50 ms between them, as fio sets its thinktime. Unlike
// fio, gofio reaps the program when the job ends, leaving no zombie.
package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gofio/gofio/engines"
)

// pause is fio's 50 ms wait between checks on the program (its thinktime
// for the exec engine).
const pause = 50 * time.Millisecond

// Engine runs one program for the job.
type Engine struct {
	engines.Sync
	name     string
	program  string
	args     []string
	redirect bool
	grace    time.Duration
	runtime  time.Duration
	started  time.Time // when the program started: the runtime's clock
	cmd      *osexec.Cmd
	exited   chan struct{} // closed once the program exited and was reaped
	termed   bool
	sleep    func(time.Duration)
	now      func() time.Time
}

// Open checks the program option and expands the arguments.
func Open(s engines.Setup) (engines.Engine, error) {
	j := s.Job
	if j == nil || optionsOf(j).Program == "" {
		return nil, errors.New("exec: no program is defined, it is mandatory to define one")
	}
	o := optionsOf(j)
	e := &Engine{name: j.Name, program: o.Program, args: Args(o.Arguments, j.Runtime, j.Name),
		redirect: o.StdRedirect, grace: time.Duration(o.GraceTime) * time.Second, runtime: j.Runtime,
		sleep: time.Sleep, now: time.Now}
	var err error
	if e.Sync, err = engines.NewSync("exec", s.Depth, max(len(s.Files), 1), true, e.do); err != nil {
		return nil, err
	}
	return e, nil
}

// Args expands fio's %r (runtime in whole seconds) and %n (job name) in
// arguments and splits the result on blanks, as fio's exec_background.
func Args(arguments string, runtime time.Duration, name string) []string {
	a := strings.ReplaceAll(arguments, "%r", strconv.FormatInt(int64(runtime/time.Second), 10))
	a = strings.ReplaceAll(a, "%n", name)
	return strings.FieldsFunc(a, func(r rune) bool { return r == ' ' })
}

// ThinkTime is fio's 50 ms thinktime for the exec engine.
func (e *Engine) ThinkTime() time.Duration { return pause }

// do is one request: a read or write "moves" its length (the run core
// counts no bytes for exec); a failure to start the program is its errno.
func (e *Engine) do(r *engines.Request) int32 {
	if err := e.step(); err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return -int32(errno)
		}
		return -int32(syscall.ENOEXEC)
	}
	if r.Op.IsSync() {
		return 0
	}
	return int32(len(r.Buf))
}

// step is one request: start the program, or wait and stop it once the
// runtime has passed.
func (e *Engine) step() error {
	if e.cmd == nil {
		return e.start()
	}
	e.sleep(pause)
	if !e.termed && e.runtime > 0 && e.now().Sub(e.started) > e.runtime {
		e.termed = true
		if !e.hasExited() {
			_ = e.cmd.Process.Signal(syscall.SIGTERM)
		}
		e.sleep(e.grace)
	}
	return nil
}

// hasExited reports whether the program has exited (and been reaped).
func (e *Engine) hasExited() bool {
	select {
	case <-e.exited:
		return true
	default:
		return false
	}
}

func (e *Engine) start() error {
	cmd := osexec.Command(e.program, e.args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if e.redirect {
		out, err := os.OpenFile(e.name+".stdout", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("exec: cannot open output file: %w", err)
		}
		defer out.Close()
		errf, err := os.OpenFile(e.name+".stderr", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("exec: cannot open output file: %w", err)
		}
		defer errf.Close()
		cmd.Stdout, cmd.Stderr = out, errf
	}
	// The job's first request: fio's td->start, taken before the fork.
	e.started = e.now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("exec: start %s: %w", e.program, err)
	}
	e.cmd = cmd
	e.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait() // its exit status is the program's business, as in fio
		close(e.exited)
	}()
	return nil
}

// Close kills a program still running and reaps it.
func (e *Engine) Close() error {
	if e.cmd == nil {
		return nil
	}
	if !e.hasExited() {
		_ = e.cmd.Process.Kill()
	}
	<-e.exited
	e.cmd = nil
	return nil
}
