package cmd

// This file records the runner in every result: its fingerprint's
// environment (internal/fingerprint) before the run, and the disks the
// run used after it.

import (
	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/report"
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
