package cmd

// This file records the runner in every result: its fingerprint's
// environment (internal/fingerprint) before the run and the disks the run
// used after it, and the canary (internal/canary) read before the first
// job and after the last.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// sysfs is the machine's own sysfs tree.
var sysfs = fingerprint.Sysfs{Root: "/sys"}

// recordDisks fills info's environment with the disks res sampled (its
// disk_util entries): none for a run on tmpfs or the null engine.
func recordDisks(info *report.RunInfo, res *report.Result) {
	if info.Env == nil || res == nil {
		return
	}
	names := make([]string, 0, len(res.Disks))
	for _, d := range res.Disks {
		names = append(names, d.Name)
	}
	info.Env.Devices = sysfs.Devices(names)
}

// NullBurstIOs is the canary's null-engine burst: 4 KiB random reads at
// iodepth 16, about 2 ms of gofio's event loop with the job's set-up.
const NullBurstIOs = 8192

// canaryRunner is the canary a run reads: st.Canary when set, else the
// CPU and memory items and a null-engine burst through run.Run, the event
// loop every job runs in.
func (st *State) canaryRunner() *canary.Runner {
	if st.Canary != nil {
		return st.Canary
	}
	return &canary.Runner{Items: []canary.Item{canary.CPUItem(), canary.MemItem(), {Name: canary.ItemNull, Run: nullBurst}}}
}

// nullBurst runs the canary's null-engine job once and returns the wall
// time of the whole run, its set-up and end included, per I/O in ns (the
// job's own runtime has millisecond resolution, a good part of the
// burst).
func nullBurst(ctx context.Context) (float64, error) {
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: []string{"--name=canary", "--ioengine=null", "--rw=randread",
		"--bs=4k", "--size=64m", "--iodepth=16", "--number_ios=" + strconv.Itoa(NullBurstIOs)}})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	res, err := run.Run(ctx, jobs, run.Options{Warn: io.Discard, Info: io.Discard})
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Error != 0 {
		return 0, errors.New("the null-engine job failed")
	}
	if n := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs; n != NullBurstIOs {
		return 0, fmt.Errorf("the null-engine job did %d I/Os, not %d", n, NullBurstIOs)
	}
	return float64(took.Nanoseconds()) / NullBurstIOs, nil
}

// readCanary takes one canary reading into *into; a canary that cannot
// run is said and left out, never failing the run.
func (st *State) readCanary(ctx context.Context, into **canary.Reading) {
	rd, err := st.canaryRunner().Read(ctx)
	if err != nil {
		st.logf("warning: %v: the result carries no canary", err)
		return
	}
	*into = rd
}

// checkRunner compares the newer run's canary with the older run's
// (compare.CheckRunner), saying when a gated comparison cannot check the
// runner.
func checkRunner(st *State, cfg *Config, old, cur *report.RunInfo) *report.RunnerCheck {
	rc := compare.CheckRunner(old, cur, compare.CanaryTolerancePct)
	if rc.Unchecked != "" && cfg.FailIfSlower >= 0 {
		st.logf("warning: %s: the runner is not checked, and a slower runner would read as slower code", rc.Unchecked)
	}
	return rc
}

// benchConfig is what the Go benchmark format's configuration lines say
// of a run: the platform, CPU, kernel, gofio build and jobs hash.
func benchConfig(info *report.RunInfo) report.BenchConfig {
	cfg := report.BenchConfig{{"goos", runtime.GOOS}, {"goarch", runtime.GOARCH}}
	if info != nil {
		fp := info.Fingerprint()
		cfg = append(cfg, [2]string{"cpu", info.CPUModel}, [2]string{"kernel", info.Kernel},
			[2]string{"gofio", fp.Gofio}, [2]string{"jobs-hash", info.JobsHash}, [2]string{"runner", fp.Hash()})
	}
	return cfg
}

// writeBenchFiles writes the comparison c as the CI benchmark formats
// asked for: --benchfmt (benchstat), --github-benchmark
// (github-action-benchmark's customSmallerIsBetter) and --bencher
// (Bencher's BMF).
func writeBenchFiles(cfg *Config, c *report.Comparison, info *report.RunInfo) error {
	var errs []error
	if cfg.Benchfmt != "" {
		errs = append(errs, writeFile(cfg.Benchfmt, func(w io.Writer) error { return report.WriteBenchfmt(w, c, benchConfig(info)) }))
	}
	if cfg.GitHubBenchmark != "" {
		errs = append(errs, writeFile(cfg.GitHubBenchmark, func(w io.Writer) error { return report.WriteGitHubBenchmark(w, c) }))
	}
	if cfg.Bencher != "" {
		errs = append(errs, writeFile(cfg.Bencher, func(w io.Writer) error { return report.WriteBencherBMF(w, c) }))
	}
	return errors.Join(errs...)
}
