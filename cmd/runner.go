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
