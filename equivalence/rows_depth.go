package equivalence

import (
	"fmt"
	"math"
)

// depthRows check that iodepth means in gofio what it means in fio 3.33:
// with the same plain job both programs keep the same number of I/Os in
// flight. Little's law gives it for both from their reports (IOPS times
// mean latency), and gofio measures it too: the time-averaged number of
// I/Os submitted and not yet reaped ("gofio" object, inflight_mean).
var depthRows = []Row{
	{Name: "depth/inflight-qd16", Ref: "measured depth, fio's reaping in plain runs",
		Args:     args(uringDirect, "--rw=randread", "--bs=4k", "--size=64m", "--iodepth=16", "--time_based", "--runtime=1"),
		Serial:   true,
		NoCounts: true,
		Check:    inFlight,
	},
	{Name: "depth/inflight-qd128", Ref: "measured depth, fio's reaping in plain runs",
		Args:     args(uringDirect, "--rw=randread", "--bs=4k", "--size=64m", "--iodepth=128", "--time_based", "--runtime=1"),
		Serial:   true,
		NoCounts: true,
		Check:    inFlight,
	},
}

// Tolerances of inFlight: how far gofio's measured mean may stray from
// its own Little's-law figure, and how far the two programs' figures may
// stray from each other.
const (
	inFlightSelfTol = 0.03
	inFlightFioTol  = 0.05
)

// inFlight checks, for each run, that gofio's measured mean in flight is
// its IOPS times its mean clat (submission to completion, the span the
// measure counts) within 3%; that it is fio's IOPS times fio's mean clat
// within 5%; and that IOPS times mean total latency (from the I/O's
// preparation) agrees between the programs within 5%.
func inFlight(fio, gofio []*Outcome) []string {
	return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) []string {
		little := func(j map[string]any, lat string) float64 {
			iops, _ := Number(j, "read.iops")
			mean, _ := Number(j, "read."+lat+".mean")
			return iops * mean / 1e9
		}
		measured, ok := Number(gj, "gofio.inflight_mean")
		if !ok {
			return []string{fmt.Sprintf("run %d: gofio's report has no gofio.inflight_mean", i)}
		}
		var diffs []string
		off := func(a, b, tol float64, what string) {
			if b <= 0 || math.Abs(a-b) > tol*b {
				diffs = append(diffs, fmt.Sprintf("run %d: %s: %.2f against %.2f, want within %.0f%%", i, what, a, b, tol*100))
			}
		}
		gClat, fClat := little(gj, "clat_ns"), little(fj, "clat_ns")
		off(measured, gClat, inFlightSelfTol, "gofio's measured mean in flight against its IOPS x mean clat")
		off(measured, fClat, inFlightFioTol, "gofio's measured mean in flight against fio's IOPS x mean clat")
		off(little(gj, "lat_ns"), little(fj, "lat_ns"), inFlightFioTol, "gofio's IOPS x mean lat against fio's")
		return diffs
	})
}
