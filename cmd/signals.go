package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// sameSignalWindow is how soon after the first signal another one is the
// same request delivered twice (see watchSignals): far below a person's
// second Ctrl-C, far above timeout(1)'s two sends.
const sameSignalWindow = 50 * time.Millisecond

// Main runs the gofio command line args with the process's standard
// streams and SIGINT/SIGTERM turned into gofio's stop rules, and returns
// the exit code. exit is called only on a second signal (main passes
// os.Exit); nothing else below main exits the process.
func Main(args []string, exit func(int)) int {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go watchSignals(sigs, done, cancel, os.Stderr, exit, sameSignalWindow)
	code := newState(os.Stdin, os.Stdout, os.Stderr).command(ctx, args)
	signal.Stop(sigs)
	close(done)
	cancel()
	return code
}

// watchSignals turns SIGINT and SIGTERM into gofio's stop rules until done
// is closed: the first signal cancels the run (the jobs drain, the partial
// report is printed, what the layout half-made is removed and run returns
// ExitInterrupted); a second one, while the first is still being handled,
// calls exit(ExitInterrupted) at once. A signal within window of the first
// is the same request delivered twice, not a second one: timeout(1) sends
// its signal to gofio and then to gofio's process group, so gofio gets it
// twice within microseconds (fio takes that as one request too). It is
// main's alone: nothing below main exits the process.
func watchSignals(sigs <-chan os.Signal, done <-chan struct{}, cancel func(), stderr io.Writer, exit func(int), window time.Duration) {
	var first time.Time
	for {
		select {
		case <-done:
			return
		case s := <-sigs:
			switch {
			case first.IsZero():
				first = time.Now()
				fmt.Fprintf(stderr, "gofio: terminating on signal %s; send it again to exit at once\n", signalName(s))
				cancel()
				continue
			case time.Since(first) < window:
				continue // the first signal, delivered again
			}
			fmt.Fprintf(stderr, "gofio: second signal %s, exiting at once\n", signalName(s))
			exit(ExitInterrupted)
			return
		}
	}
}

// signalName names s as "SIGINT" or "SIGTERM" (or Go's text for others).
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
