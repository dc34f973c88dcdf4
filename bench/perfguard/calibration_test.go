package main

import (
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// calibrationSink keeps the compiler from dropping BenchmarkCalibration's
// work.
var calibrationSink uint64

// BenchmarkCalibration is the guard's yardstick: fixed integer work with
// branches and L1-resident memory traffic, like the event loop's, but in
// no gofio code, so that a change to gofio never moves it. The guard
// divides the loop's CPU time per I/O by its CPU time per op, which a
// slower or busier machine changes for both alike. cpu-ns/op is the
// process's CPU time: on a shared machine ns/op also counts the time the
// benchmark waited for a CPU.
func BenchmarkCalibration(b *testing.B) {
	var buf [64]uint64
	x := uint64(88172645463325252)
	from := processCPU(b)
	for i := 0; i < b.N; i++ {
		for j := range buf {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			buf[j] = x
		}
		slices.Sort(buf[:])
		calibrationSink += buf[i%len(buf)]
	}
	b.ReportMetric(float64((processCPU(b)-from).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// processCPU returns the process's user and system CPU time.
func processCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
