package cmd

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCanaryReading measures one standard canary reading (the CPU
// and memory items and the null-engine burst through run.Run): its wall
// time (ns/op) and the process's CPU time (cpu-ms/op), which a busy
// machine does not inflate; "full" takes all five reps whatever the time
// (no budget), "budget" stops at three past canary.Budget as runs do. A
// run reads the canary twice.
//
//	go test -run '^$' -bench CanaryReading -benchtime 20x ./cmd/
func BenchmarkCanaryReading(b *testing.B) {
	for _, c := range []struct {
		name   string
		budget time.Duration
	}{{"full", -1}, {"budget", 0}} {
		b.Run(c.name, func(b *testing.B) { benchCanary(b, c.budget) })
	}
}

func benchCanary(b *testing.B, budget time.Duration) {
	r := (&State{}).canaryRunner()
	r.Budget = budget
	if _, err := r.Read(context.Background()); err != nil { // the memory item's buffer
		b.Fatal(err)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpu()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}
