package cmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// Exit codes. A run whose jobs hit I/O errors exits with the number of
// failed jobs, as fio does, capped at ExitJobErrorsMax so that it never
// reads as one of the named codes above it.
const (
	ExitOK           = 0
	ExitBadInput     = 1   // bad job file, option, value or command line
	ExitJobErrorsMax = 100 // N failed jobs exit min(N, 100)
	ExitSlower       = 101 // --fail-if-slower: a row slower beyond noise by more than the threshold
	// ExitRunnerChanged: a comparison across runs (gofio diff,
	// --baseline, gofio history) found the runner's canary moved the way
	// that could explain its outcome, so it blames neither code nor
	// runner; gofio drift found the runner too noisy to gate on.
	ExitRunnerChanged = 102
	// ExitInconclusive is --fail-if-slower with no row slower but some row
	// still undecided when its rounds or the --budget ran out: neither a
	// pass nor a failure, so a pipeline can tell it from both.
	ExitInconclusive = 103
	ExitInterrupted  = 130 // SIGINT or SIGTERM
)

// State is the process state of one gofio command, in one struct so that a
// whole command runs in-process in a test (after grafana/k6).
type State struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv looks up environment variables for ${VAR} expansion.
	Getenv func(string) (string, bool)
	// StdoutIsTerminal decides --eta=auto.
	StdoutIsTerminal bool
	StderrIsTerminal bool
	// RunCore runs validated jobs; nil means run.Run. Tests set it to
	// drive --compare and --fail-if-slower with results they choose.
	RunCore func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error)
	// Canary reads the runner before and after a comparison run; nil
	// means the standard one (canaryRunner). Tests pass one whose items
	// they control, e.g. a slower runner.
	Canary *canary.Runner
	// Uring is the kernel as --fallback-engine and gofio version probe it;
	// the zero value is the real one. Tests fake a kernel without io_uring.
	Uring uring.Kernel
}

// runCore runs jobs through st.RunCore, or run.Run when it is unset.
func (st *State) runCore(ctx context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
	if st.RunCore != nil {
		return st.RunCore(ctx, jobs, opts)
	}
	return run.Run(ctx, jobs, opts)
}

// logf prints one gofio message on stderr: "gofio: " and the text.
func (st *State) logf(format string, args ...any) {
	fmt.Fprintf(st.Stderr, "gofio: "+format+"\n", args...)
}

// fail prints err as gofio's one-line error and returns ExitBadInput.
func (st *State) fail(err error) int {
	st.logf("%v", err)
	return ExitBadInput
}

// newState returns the State of a real process.
func newState(stdin io.Reader, stdout, stderr io.Writer) *State {
	return &State{
		Stdin:            stdin,
		Stdout:           stdout,
		Stderr:           stderr,
		Getenv:           os.LookupEnv,
		StdoutIsTerminal: isTerminal(stdout),
		StderrIsTerminal: isTerminal(stderr),
		RunCore:          run.Run,
	}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
