package main

import (
	"io"
	"os"
)

// Exit codes. A run whose jobs hit I/O errors exits with the number of
// failed jobs, as fio does, capped at ExitJobErrorsMax so that it never
// reads as one of the named codes above it.
const (
	ExitOK           = 0
	ExitBadInput     = 1   // bad job file, option, value or command line
	ExitJobErrorsMax = 100 // N failed jobs exit min(N, 100)
	ExitSlower       = 101 // --fail-if-slower: priority lost beyond noise
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
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
