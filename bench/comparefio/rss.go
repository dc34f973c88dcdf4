package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// timeBinary is GNU time, whose -v prints the peak RSS.
const timeBinary = "/usr/bin/time"

// rssBaseMiB is the fixed allowance, before the buffers.
const rssBaseMiB = 64

// ParseMaxRSS reads "Maximum resident set size (kbytes): N" from the
// output of /usr/bin/time -v and returns N KiB in bytes.
func ParseMaxRSS(out []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		_, v, ok := strings.Cut(sc.Text(), "Maximum resident set size (kbytes):")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse max rss: %w", err)
		}
		return kb << 10, nil
	}
	return 0, errors.New("no \"Maximum resident set size\" line in time -v output")
}

// RSSLimit is the RSS bound: 64 MiB plus 1.5 times the I/O buffers.
func RSSLimit(depth int, bs int64) int64 {
	return rssBaseMiB<<20 + 3*int64(depth)*bs/2
}

// ensureTime installs the `time` package when /usr/bin/time is absent.
func ensureTime(ctx context.Context, log io.Writer) error {
	if _, err := os.Stat(timeBinary); err == nil {
		return nil
	}
	if os.Geteuid() != 0 {
		return errors.New("/usr/bin/time is missing and not root to apt-get install time")
	}
	return aptInstall(ctx, log, "time")
}

// peakRSS runs bin with args under /usr/bin/time -v and returns its peak
// RSS and its stdout.
func peakRSS(ctx context.Context, dir, bin string, args []string) (int64, []byte, error) {
	report := filepath.Join(dir, "time-v.txt")
	cmd := exec.CommandContext(ctx, timeBinary, append([]string{"-v", "-o", report, bin}, args...)...)
	interruptOnCancel(cmd)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, nil, fmt.Errorf("%s: %w: %s", bin, err, firstLine(stderr.String()))
	}
	out, err := os.ReadFile(report)
	if err != nil {
		return 0, nil, fmt.Errorf("time -v report: %w", err)
	}
	v, err := ParseMaxRSS(out)
	return v, stdout.Bytes(), err
}

// runRSS measures gofio's peak RSS at a huge depth and,
// for reference, fio's on the same job.
func runRSS(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gofio := fs.String("gofio", os.Getenv("GOFIO"), "binary to measure (default: go build -o bench/out/gofio .; env GOFIO)")
	fio := fs.String("fio", envOr("FIO", "/usr/bin/fio"), "fio, measured for reference; empty to skip")
	depth := fs.Int("depth", 16384, "iodepth")
	bs := fs.Int64("bs", 4096, "block size in bytes")
	runtime := fs.Duration("runtime", 5*time.Second, "length of each run")
	sizeMiB := fs.Int64("size", 1024, "tmpfs file size in MiB")
	shmDir := fs.String("shmdir", "/dev/shm", "tmpfs directory for the scratch file")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	say := logf(stderr)
	if err := ensureTime(ctx, stderr); err != nil {
		say("rss: %v", err)
		return exitSetup
	}
	bin, err := gofioBinary(ctx, *gofio, stderr)
	if err != nil {
		say("rss: %v", err)
		return exitSetup
	}
	dir, err := os.MkdirTemp(*shmDir, "gofio-rss-")
	if err != nil {
		say("rss: %v", err)
		return exitSetup
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "rss.dat")
	if err := LayOut(file, *sizeMiB<<20, 4); err != nil {
		say("rss: %v", err)
		return exitSetup
	}
	direct := "1"
	if ok, _ := DirectWorks(file); !ok {
		direct = "0"
	}
	job := []string{"--name=rss", "--ioengine=io_uring", "--rw=randread", "--bs=" + strconv.FormatInt(*bs, 10),
		"--direct=" + direct, "--iodepth=" + strconv.Itoa(*depth), "--time_based",
		"--runtime=" + runtimeArg(*runtime), "--filename=" + file,
		"--size=" + strconv.FormatInt(*sizeMiB<<20, 10), "--output-format=json"}
	limit := RSSLimit(*depth, *bs)
	rss, out, err := peakRSS(ctx, dir, bin, job)
	if err != nil {
		say("rss: FAIL: %v", err)
		return exitFailures
	}
	s, perr := ParseSample(out)
	fmt.Fprintf(stdout, "rss: iodepth=%d bs=%d direct=%s on tmpfs, %s\n", *depth, *bs, direct, *runtime)
	fmt.Fprintf(stdout, "  gofio peak RSS %.1f MiB, limit %.1f MiB (64 MiB + 1.5 x %.1f MiB of buffers)",
		float64(rss)/(1<<20), float64(limit)/(1<<20), float64(int64(*depth)**bs)/(1<<20))
	if perr == nil {
		fmt.Fprintf(stdout, ", %.0f IOPS", s.IOPS)
	}
	fmt.Fprintln(stdout)
	if *fio != "" {
		if frss, _, ferr := peakRSS(ctx, dir, *fio, job); ferr != nil {
			fmt.Fprintf(stdout, "  fio: %v\n", ferr)
		} else {
			fmt.Fprintf(stdout, "  fio peak RSS %.1f MiB (reference, largest process)\n", float64(frss)/(1<<20))
		}
	}
	switch {
	case perr != nil:
		fmt.Fprintf(stdout, "  FAIL: output: %v\n", perr)
		return exitFailures
	case len(s.Errors) > 0:
		fmt.Fprintf(stdout, "  FAIL: job errors %v\n", s.Errors)
		return exitFailures
	case rss > limit:
		fmt.Fprintf(stdout, "  FAIL: over the limit by %.1f MiB\n", float64(rss-limit)/(1<<20))
		return exitFailures
	}
	fmt.Fprintln(stdout, "  ok")
	return exitOK
}
