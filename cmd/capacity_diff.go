package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/gofio/gofio/compare/capacity"
	"github.com/gofio/gofio/report"
)

// This file is gofio diff's capacity: where both saved runs hold a
// gofio_capacity (made with --slo), each side they share is compared, the
// new run's capacity against the old's (compare/capacity.Diff), judged
// again from the saved curves under --slo when it is given, and gated by
// --fail-if-capacity-below against the old run's capacity (N%) or a floor
// (N IOPS).

// diffCapacities returns the capacities of gofio diff OLD.json NEW.json:
// none when neither run saved one (a capacity flag then fails the diff),
// and a warning, not an error, when only one did and no flag asks.
func diffCapacities(st *State, cfg *Config) ([]*report.Capacity, error) {
	cf := &cfg.Capacity
	asked := cf.SLO != "" || cf.Plot != "" || cf.Below != ""
	old, _, errOld := capacity.ReadSaved(cfg.JobFiles[0])
	cur, _, errCur := capacity.ReadSaved(cfg.JobFiles[1])
	switch {
	case errOld != nil && errCur != nil && !asked:
		return nil, nil
	case (errOld != nil || errCur != nil) && !asked:
		st.logf("warning: capacity not compared: %v", errors.Join(errOld, errCur))
		return nil, nil
	case errOld != nil || errCur != nil:
		return nil, fmt.Errorf("--slo, --capacity-plot and --fail-if-capacity-below compare the capacities both runs saved: %w", errors.Join(errOld, errCur))
	}
	var o *capacity.SLO
	if cf.SLO != "" {
		o = &cf.slo
	}
	caps, skipped, err := capacity.Diff(old, cur, o)
	for _, s := range skipped {
		st.logf("warning: capacity not compared: %s", s)
	}
	if err != nil {
		return nil, fmt.Errorf("capacity: %w", err)
	}
	if cf.Plot != "" && len(caps) == 0 {
		return nil, errors.New("--capacity-plot: the runs share no side to draw")
	}
	for _, c := range caps {
		cr := &capacityRun{flags: cf, ref: c.Old, refName: "the old run " + cfg.JobFiles[0]}
		c.Gate = cr.judge(c)
	}
	return caps, nil
}

// writeCapacityDiffPlot writes --capacity-plot of a diff: the first
// side's curves, the new run's and the old's, on the diff's comparison.
func writeCapacityDiffPlot(cfg *Config, caps []*report.Capacity, d *report.Comparison) error {
	if cfg.Capacity.Plot == "" || len(caps) == 0 {
		return nil
	}
	return writeFile(cfg.Capacity.Plot, func(w io.Writer) error { return report.WriteCapacitySVG(w, caps[0], d) })
}
