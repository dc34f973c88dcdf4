package cmd

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/gofio/gofio/internal/buildinfo"
	"github.com/gofio/gofio/internal/hostinfo"
	"github.com/gofio/gofio/internal/uring"
)

// versionString is the running gofio's version as --version prints it and
// results carry it ("fio version" in JSON): "gofio-" and the build's
// version (see internal/buildinfo).
func versionString() string { return buildinfo.String() }

// writeVersion prints --version: one line, as fio prints "fio-3.33". With
// verbose (--version --verbose, gofio version) it adds the build, the Go
// release and platform, the kernel, and what the kernel's io_uring
// supports, probed by setting up tiny rings.
func writeVersion(w io.Writer, k uring.Kernel, verbose bool) error {
	bi := buildinfo.Read()
	fmt.Fprintln(w, bi.String())
	if !verbose {
		return nil
	}
	rev := bi.Revision
	if rev == "" {
		rev = "unknown (built without VCS stamping: go build -buildvcs=true in a clone)"
	} else {
		if bi.Time != "" {
			rev += " (" + bi.Time + ")"
		}
		if bi.Dirty {
			rev += ", dirty"
		}
	}
	fmt.Fprintf(w, "module:       github.com/gofio/gofio %s\n", bi.Version)
	fmt.Fprintf(w, "commit:       %s\n", rev)
	fmt.Fprintf(w, "go:           %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "kernel:       Linux %s %s\n", hostinfo.Kernel(), hostinfo.Machine())
	writeSupport(w, k.ProbeSupport())
	_, err := fmt.Fprintln(w)
	return err
}

// writeSupport prints what the io_uring probe found.
func writeSupport(w io.Writer, s *uring.Support) {
	if !s.Available() {
		fmt.Fprintf(w, "io_uring:     off: %v\n", s.Err)
		return
	}
	fmt.Fprintf(w, "io_uring:     on (features %s)\n", strings.Join(uring.FeatureNames(s.Features), " "))
	switch {
	case s.SQPollDenied != nil:
		fmt.Fprintf(w, "sqpoll:       refused to this process (%v)\n", s.SQPollDenied)
	case s.SQPollUnprivileged():
		fmt.Fprintln(w, "sqpoll:       allowed without privilege (Linux 5.13+)")
	case s.SQPollNeedsNice():
		fmt.Fprintln(w, "sqpoll:       needs CAP_SYS_NICE (Linux 5.11, 5.12)")
	default:
		fmt.Fprintln(w, "sqpoll:       needs root (kernel before 5.11)")
	}
	fmt.Fprintf(w, "setup flags:  accepted %s\n", orNone(s.Accepted))
	fmt.Fprintf(w, "              refused %s\n", orNone(s.Refused))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, " ")
}
