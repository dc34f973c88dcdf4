package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// execute runs the parsed jobs and writes the reports: a plain run, or a
// --compare/--sweep plan of runs folded into a comparison.
func execute(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, in jobfile.Input) int {
	if cfg.Compare != nil || len(cfg.Sweeps) > 0 || cfg.Repeat > 1 || cfg.Baseline != "" || cfg.History != "" ||
		hasFormat(cfg, "compare") || hasFormat(cfg, "markdown") || cfg.JUnit != "" || cfg.Benchfmt != "" || cfg.GitHubBenchmark != "" || cfg.Bencher != "" {
		if !cfg.StartAt.IsZero() || cfg.FallbackEngine != "" {
			return st.fail(errors.New("--start-at and --fallback-engine apply to a plain run, not to --compare, --sweep, --repeat or --baseline"))
		}
		return executeCompare(ctx, st, cfg, jobs, in)
	}
	if cfg.Capacity.SLO != "" {
		return st.fail(sloError(cfg, errors.New("--slo needs a --sweep over iodepth or rate_iops: the capacity is the highest IOPS of the sweep's points that meets the objective")))
	}
	if cfg.FailIfSlower >= 0 || cfg.Plot != "" || cfg.CompareCSV != "" || cfg.JSONDir != "" {
		err := errors.New("--fail-if-slower, --plot, --compare-csv and --json-dir need --compare, --sweep, --repeat or --baseline: a plain run has nothing to compare")
		if cfg.Plot == "" && cfg.CompareCSV == "" && cfg.JSONDir == "" {
			err = gateError(cfg, err)
		}
		return st.fail(err)
	}
	notes := fallback(st, cfg, jobs, st.Uring.CheckAvailable)
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()
	// The header waits until the run core has checked every job, so a job
	// it refuses leaves stdout empty.
	var header bytes.Buffer
	if hasFormat(cfg, "normal") {
		if err := report.WriteHeader(&header, jobs, versionString()); err != nil {
			st.logf("%v", err)
		}
	}
	res, err := runWithETA(ctx, st, cfg, jobs, out, header.Bytes())
	if res == nil {
		return st.fail(err)
	}
	noteFallback(res, notes)
	res.Run = withFleet(cfg, describeRun(jobs, nil, nil, 1))
	recordDisks(res.Run, res)
	if code := writeReports(st, cfg, out, res); code != ExitOK {
		return code
	}
	if err != nil {
		return st.fail(err)
	}
	return exitCode(res)
}

// runWithETA runs jobs once with the ETA line where --eta asks for it. header
// is written to info once the run core has accepted every job, before any
// starts; layout notes ("Laying out IO file") go to info when the normal
// format is on.
func runWithETA(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, info io.Writer, header []byte) (*report.Result, error) {
	opts := run.Options{Warn: st.Stderr, Info: io.Discard, Version: versionString(), Release: cfg.FioRelease, Compare: cfg.Compare != nil, AuxPath: cfg.AuxPath,
		StartAt: cfg.StartAt, StartLate: cfg.StartLate}
	if hasFormat(cfg, "normal") {
		opts.Info = info
	}
	var eta *report.ETA
	stop := make(chan struct{})
	done := make(chan struct{})
	var agg *report.AggBandwidth
	aggDone := make(chan struct{})
	wantETA := etaWanted(st, cfg) && len(jobs) > 0
	if wantETA || len(header) > 0 || cfg.BandwidthLog {
		opts.OnProgress = func(ps []*report.Progress) {
			if _, err := info.Write(header); err != nil {
				st.logf("%v", err)
			}
			if cfg.BandwidthLog {
				agg = &report.AggBandwidth{}
				go agg.Run(ps, time.Now(), stop, aggDone)
			}
			if !wantETA {
				return
			}
			eta = report.NewETA(st.Stderr, ps, jobs[0].KBBase, jobs[0].UnitBase)
			eta.NewlineEvery = cfg.EtaNewline
			go func() {
				defer close(done)
				eta.Run(stop, time.Now(), time.Second)
			}()
		}
	}
	opts.IOTimeout = cfg.IOTimeout
	opts.KernelStages = cfg.KernelStages
	opts.KernelLocks = cfg.KernelLocks
	opts.KernelTraceCost = cfg.KernelTraceCost
	if cfg.StatusInterval > 0 {
		var mu sync.Mutex
		opts.StatusInterval = cfg.StatusInterval
		opts.OnStatus = func(r *report.Result) {
			mu.Lock()
			defer mu.Unlock()
			if err := writeFormats(cfg, info, r); err != nil {
				st.logf("%v", err)
			}
		}
	}
	res, err := st.runCore(ctx, jobs, opts)
	close(stop)
	if eta != nil {
		<-done
	}
	if agg != nil {
		<-aggDone
		if werr := report.WriteAggBWLogs(".", agg.Samples); werr != nil {
			st.logf("%v", werr)
		}
	}
	return res, err
}

// writeReports writes res in every requested format, in fio's order (terse,
// json, normal), and the write_*_log files.
func writeReports(st *State, cfg *Config, out io.Writer, res *report.Result) int {
	errs := []error{writeFormats(cfg, out, res)}
	if wantsLogs(res) {
		errs = append(errs, report.WriteLogs(".", res))
	}
	if err := errors.Join(errs...); err != nil {
		return st.fail(err)
	}
	return ExitOK
}

// canonicalOption resolves a --sweep key through the option table.
func canonicalOption(key string) (string, error) {
	spec, ok := jobfile.Lookup(key)
	if !ok {
		return "", fmt.Errorf("unknown option %q", key)
	}
	return spec.Name, nil
}

// exitCode is fio's: the number of jobs that ended with an error, or
// ExitInterrupted when a signal cut the run short.
func exitCode(res *report.Result) int {
	if res.Signal != "" {
		return ExitInterrupted
	}
	failed := 0
	for _, j := range res.Jobs {
		if j.Error != 0 {
			failed++
		}
	}
	return min(failed, ExitJobErrorsMax)
}

func hasFormat(cfg *Config, f string) bool {
	for _, v := range cfg.OutputFormats {
		if v == f {
			return true
		}
	}
	return false
}

// etaWanted decides whether the status line is printed: --eta=always, or
// auto with stderr on a terminal and the normal format on.
func etaWanted(st *State, cfg *Config) bool {
	switch cfg.Eta {
	case "always":
		return true
	case "never":
		return false
	}
	return st.StderrIsTerminal && hasFormat(cfg, "normal")
}

func wantsLogs(res *report.Result) bool {
	for _, j := range res.Jobs {
		if j.Job != nil && j.Job.WritesLogs() {
			return true
		}
	}
	return false
}
