package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// soakFlags are the flags of the soak check.
type soakFlags struct {
	gofio         string
	duration      time.Duration
	depth         int
	bs            string
	sizeMiB       int64
	interval      time.Duration // IOPS window (log_avg_msec)
	rssEvery      time.Duration
	rssTol        float64 // percent
	iopsTol       float64 // percent
	shmDir, jsonF string
}

// runSoak runs one long time_based io_uring randread job at a huge depth on
// tmpfs, samples its RSS, and checks RSS flatness, dropped CQEs, errors
// and per-window IOPS steadiness.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, ok := parseSoakFlags(args, stderr)
	if !ok {
		return exitUsage
	}
	say := logf(stderr)
	bin, err := gofioBinary(ctx, f.gofio, stderr)
	if err != nil {
		say("soak: %v", err)
		return exitSetup
	}
	dir, err := os.MkdirTemp(f.shmDir, "gofio-soak-")
	if err != nil {
		say("soak: %v", err)
		return exitSetup
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "soak.dat")
	say("laying out %s (%d MiB)", file, f.sizeMiB)
	if err := LayOut(file, f.sizeMiB<<20, 3); err != nil {
		say("soak: %v", err)
		return exitSetup
	}
	direct := "1"
	if ok, derr := DirectWorks(file); !ok {
		say("soak: O_DIRECT on tmpfs does not work here (%v): using direct=0", derr)
		direct = "0"
	}
	jobArgs := []string{"--name=soak", "--ioengine=io_uring", "--rw=randread", "--bs=" + f.bs,
		"--direct=" + direct, "--iodepth=" + strconv.Itoa(f.depth), "--time_based",
		"--runtime=" + runtimeArg(f.duration), "--filename=" + file,
		"--size=" + strconv.FormatInt(f.sizeMiB<<20, 10), "--thread",
		"--write_iops_log=" + filepath.Join(dir, "soak"),
		"--log_avg_msec=" + strconv.FormatInt(f.interval.Milliseconds(), 10),
		"--output-format=json"}
	say("%s %v", bin, jobArgs)
	cmd := exec.CommandContext(ctx, bin, jobArgs...)
	interruptOnCancel(cmd)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr
	rss, runErr := runSampled(cmd, f.rssEvery, say)
	if errors.Is(runErr, errStart) {
		return exitSetup
	}
	if err := writeFile(f.jsonF, func(w io.Writer) error { _, err := w.Write(out.Bytes()); return err }); err != nil {
		say("soak: %v", err)
	}
	if runErr != nil {
		say("soak: FAIL: %s: %v", bin, runErr)
		return exitFailures
	}
	s, err := ParseSample(out.Bytes())
	if err != nil {
		say("soak: FAIL: %v", err)
		return exitFailures
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "soak_iops*.log"))
	var iops []float64
	if len(logs) > 0 {
		if _, iops, err = ReadLogValues(logs[0]); err != nil {
			say("soak: %v", err)
		}
	}
	checks := SoakChecks(s, rss, iops, f.rssTol, f.iopsTol)
	fmt.Fprintf(stdout, "soak: %s, iodepth=%d bs=%s, %s on tmpfs, %.0f IOPS overall\n", bin, f.depth, f.bs, f.duration, s.IOPS)
	failed := false
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark, failed = "FAIL", true
		}
		fmt.Fprintf(stdout, "  %s %s\n", mark, c.Text)
	}
	if failed {
		return exitFailures
	}
	return exitOK
}

// Check is one verdict of the soak or RSS check.
type Check struct {
	OK   bool
	Text string
}

// SoakChecks judges a soak run: no job error, no dropped I/O (drop_ios and
// any drop/overflow counter gofio adds), RSS samples within rssTol percent
// of each other, and every IOPS window within iopsTol percent of the
// windows' median.
func SoakChecks(s Sample, rss []int64, iops []float64, rssTol, iopsTol float64) []Check {
	var cs []Check
	cs = append(cs, Check{len(s.Errors) == 0, fmt.Sprintf("job errors: %v", s.Errors)})
	cs = append(cs, Check{s.DropIOs == 0, fmt.Sprintf("drop_ios: %d", s.DropIOs)})
	for path, v := range DropCounters(s.Extras) {
		cs = append(cs, Check{v == 0, fmt.Sprintf("%s: %g", path, v)})
	}
	if len(rss) < 2 {
		cs = append(cs, Check{false, fmt.Sprintf("RSS: %d samples, need 2", len(rss))})
	} else {
		lo, hi := rss[0], rss[0]
		for _, v := range rss {
			lo, hi = min(lo, v), max(hi, v)
		}
		spread := 100 * float64(hi-lo) / float64(lo)
		cs = append(cs, Check{spread <= rssTol, fmt.Sprintf("RSS %.1f..%.1f MiB over %d samples: spread %.1f%% (limit %g%%)",
			float64(lo)/(1<<20), float64(hi)/(1<<20), len(rss), spread, rssTol)})
	}
	if len(iops) < 2 {
		cs = append(cs, Check{false, fmt.Sprintf("IOPS log: %d windows, need 2 (write_iops_log with log_avg_msec)", len(iops))})
	} else {
		med := Median(iops)
		worst := 0.0
		for _, v := range iops {
			worst = math.Max(worst, 100*math.Abs(v-med)/med)
		}
		cs = append(cs, Check{worst <= iopsTol, fmt.Sprintf("IOPS per window %v: median %.0f, worst %.1f%% off (limit %g%%)",
			roundAll(iops), med, worst, iopsTol)})
	}
	return cs
}

// roundAll rounds every value, for printing.
func roundAll(xs []float64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(math.Round(x))
	}
	return out
}

// parseSoakFlags parses the soak's flags; ok is false after a usage error,
// which it has written to stderr.
func parseSoakFlags(args []string, stderr io.Writer) (f soakFlags, ok bool) {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.gofio, "gofio", os.Getenv("GOFIO"), "binary to soak (default: go build -o bench/out/gofio .; env GOFIO)")
	fs.DurationVar(&f.duration, "duration", 10*time.Minute, "length of the run")
	fs.IntVar(&f.depth, "depth", 16384, "iodepth")
	fs.StringVar(&f.bs, "bs", "4k", "block size")
	fs.Int64Var(&f.sizeMiB, "size", 1024, "tmpfs file size in MiB")
	fs.DurationVar(&f.interval, "interval", time.Minute, "IOPS window checked for steadiness (log_avg_msec)")
	fs.DurationVar(&f.rssEvery, "rss-every", 10*time.Second, "RSS sampling period")
	fs.Float64Var(&f.rssTol, "rss-tolerance", 5, "allowed RSS spread over the samples, percent")
	fs.Float64Var(&f.iopsTol, "iops-tolerance", 10, "allowed distance of each window's IOPS from their median, percent")
	fs.StringVar(&f.shmDir, "shmdir", "/dev/shm", "tmpfs directory for the scratch file")
	fs.StringVar(&f.jsonF, "json", "bench/out/soak.json", "where to keep the run's JSON")
	if err := fs.Parse(args); err != nil {
		return f, false
	}
	if f.duration < 2*f.interval || f.interval < time.Second {
		fmt.Fprintf(stderr, "soak: -duration %s must hold at least two -interval %s windows of 1s or more\n", f.duration, f.interval)
		return f, false
	}
	return f, true
}

// errStart is runSampled's error when the command did not start.
var errStart = errors.New("the soak did not start")

// runSampled runs cmd to its end, sampling its RSS every period.
func runSampled(cmd *exec.Cmd, every time.Duration, say func(string, ...any)) (rss []int64, runErr error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		say("soak: %v", err)
		return nil, errStart
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(every)
	defer tick.Stop()
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-tick.C:
			if v, err := ReadRSS(cmd.Process.Pid); err == nil {
				rss = append(rss, v)
				say("t=%3.0fs rss=%.1f MiB", time.Since(start).Seconds(), float64(v)/(1<<20))
			}
		}
	}
	return rss, runErr
}
