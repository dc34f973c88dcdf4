package zbd

import (
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// benchAdjust places b.N random writes of 64 KiB over 64 zones of 1 MiB
// (16 open at most) with job j, completing each at once, as a
// synchronous engine's job does.
func benchAdjust(b *testing.B, d *Device, j *Job) {
	b.Helper()
	held := j.Holds(0, jobfile.DirWrite)
	off := uint64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		off = (off + 37*64*kib) % (64 * mib)
		o, n, ok := j.Adjust(0, 0, jobfile.DirWrite, off, 64*kib)
		if !ok {
			b.Fatal("no zone")
		}
		j.Commit(0, jobfile.DirWrite, o, n)
		j.End(0, jobfile.DirWrite, o, n, held)
	}
}

// benchDevice returns a device of 64 zones of 1 MiB used by jobs jobs
// (the first one returned), random writers of 64 KiB blocks.
func benchDevice(b *testing.B, jobs int) (*Device, *Job) {
	d, err := NewDevice("f", 64*mib, mib, 0, 16)
	if err != nil {
		b.Fatal(err)
	}
	var first *Job
	for i := 0; i < jobs; i++ {
		j := NewJob(Config{Write: true, Random: true, MinBS: [3]uint64{64 * kib, 64 * kib, 64 * kib}})
		if err := j.AddFile(d, "f", 0, 64*mib, 64*mib, 16); err != nil {
			b.Fatal(err)
		}
		j.FileReset(0)
		j.SetQuiesce(func() bool { return false }, false)
		if first == nil {
			first = j
		}
	}
	return d, first
}

// BenchmarkAdjustAlone is a zbd job with a file to itself: no lock is
// taken.
func BenchmarkAdjustAlone(b *testing.B) {
	d, j := benchDevice(b, 1)
	benchAdjust(b, d, j)
}

// BenchmarkAdjustShared is one of two jobs on a file whose other job does
// not run: the device's mutex and the zone locks, uncontended.
func BenchmarkAdjustShared(b *testing.B) {
	d, j := benchDevice(b, 2)
	benchAdjust(b, d, j)
}
