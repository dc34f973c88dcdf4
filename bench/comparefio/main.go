// Command comparefio runs gofio and fio side by side on the cases of
// the bench cases and writes the ratio table to bench/results.md. It also holds
// the soak and peak-RSS checks, as the subcommands
// "soak" and "rss". Run it through bench/compare-fio, bench/soak and
// bench/rss from the module root.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of the harness.
const (
	exitOK       = 0
	exitUsage    = 2 // bad flags
	exitSetup    = 3 // could not install, build or lay out
	exitFailures = 4 // some runs failed or a check did not hold
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to the subcommand named by args[0], or the comparison.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "soak":
			return runSoak(ctx, args[1:], stdout, stderr)
		case "rss":
			return runRSS(ctx, args[1:], stdout, stderr)
		case "compare":
			args = args[1:]
		}
	}
	return runCompare(ctx, args, stdout, stderr)
}

// logf returns a printf to w that adds a newline.
func logf(w io.Writer) func(string, ...any) {
	return func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
}
