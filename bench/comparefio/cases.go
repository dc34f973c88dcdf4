package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Better says which direction of a metric is an improvement.
type Better int

// The two directions a metric can improve in.
const (
	Higher Better = iota // IOPS, bandwidth
	Lower                // latency, CPU
)

// Metric is one figure taken from a run's JSON, with the ratio target that
// the project sets for it.
type Metric struct {
	Name   string  // column label, with its unit
	Better Better  // which way is better
	Target float64 // ratio gofio/fio to meet (>= for Higher, <= for Lower)
	// Value extracts the figure from one run.
	Value func(Sample) float64
}

// Case is one job run by both tools with the same fio command line.
type Case struct {
	Name    string   // unique, stable, matched by -cases
	Args    []string // fio command-line job options, without --output-format
	Metrics []Metric
	Note    string // shown under the table when the case ran
	// FloorDepth, when non-zero, makes the case a floor case: gofio runs
	// Args as usual, and the other side is bench/liburing/uring_floor's
	// randread/depth=FloorDepth loop on the same file instead of fio.
	FloorDepth int
	// Peak, when set, makes the case a peak case: the other side is fio's
	// own peak tool t/io_uring with this ring on the same file.
	Peak *PeakRing
	// GofioOther, when set, makes the case a comparison inside gofio:
	// the other side (the "fio" column) is gofio again, running these
	// options instead of Args (io_uring against libaio).
	GofioOther []string
}

// Layout describes the scratch targets and run length the cases are built
// for.
type Layout struct {
	TmpfsFile   string        // file on tmpfs (/dev/shm)
	TmpfsSize   int64         // bytes
	TmpfsDirect bool          // whether O_DIRECT works on tmpfs here
	RootFile    string        // file on the root filesystem
	RootSize    int64         // bytes
	Runtime     time.Duration // per run
}

// The metrics the cases use.
var (
	metricIOPS = Metric{Name: "IOPS", Better: Higher, Target: 1.0,
		Value: func(s Sample) float64 { return s.IOPS }}
	metricIOPSDevice = Metric{Name: "IOPS", Better: Higher, Target: 0.98,
		Value: func(s Sample) float64 { return s.IOPS }}
	metricLat = Metric{Name: "mean lat (us)", Better: Lower, Target: 1.0,
		Value: func(s Sample) float64 { return s.LatMeanNs / 1e3 }}
	metricCPU = Metric{Name: "CPU per I/O (ns)", Better: Lower, Target: 1.0,
		Value: func(s Sample) float64 { return s.CPUPerIONs }}
	// metricFloorIOPS is gofio's IOPS over the C liburing floor's, which
	// gofio should be within 10% of.
	metricFloorIOPS = Metric{Name: "IOPS vs C floor", Better: Higher, Target: 0.90,
		Value: func(s Sample) float64 { return s.IOPS }}
	// metricPeakIOPS is gofio's IOPS over fio's t/io_uring's on the same
	// ring flags, which gofio should be within 5% of.
	metricPeakIOPS = Metric{Name: "IOPS vs t/io_uring", Better: Higher, Target: 0.95,
		Value: func(s Sample) float64 { return s.IOPS }}
	metricBW = Metric{Name: "BW (MiB/s)", Better: Higher, Target: 0.98,
		Value: func(s Sample) float64 { return s.BWBytes / (1 << 20) }}
)

// runtimeArg formats d the way fio's runtime option reads it: whole
// seconds bare (seconds are runtime's default unit), anything else in ms.
func runtimeArg(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// boolArg formats a fio boolean.
func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// BuildCases returns every bench case, in table order, for the
// given layout.
func BuildCases(l Layout) []Case {
	timed := func(name string, extra ...string) []string {
		return append([]string{"--name=" + name, "--time_based", "--runtime=" + runtimeArg(l.Runtime)}, extra...)
	}
	var cs []Case
	for _, qd := range []int{1, 16, 128} {
		name := fmt.Sprintf("null-randread-4k-qd%d", qd)
		cs = append(cs, Case{
			Name: name,
			Args: timed(name, "--ioengine=null", "--rw=randread", "--bs=4k",
				"--size=1g", fmt.Sprintf("--iodepth=%d", qd)),
			Metrics: []Metric{metricIOPS},
		})
	}
	tmpfsNote := ""
	if !l.TmpfsDirect {
		tmpfsNote = "O_DIRECT is refused on tmpfs by this kernel: ran with direct=0"
	}
	tmpfsRead := func(name string, qd int, extra ...string) []string {
		return timed(name, append([]string{"--ioengine=io_uring", "--rw=randread", "--bs=4k",
			"--direct=" + boolArg(l.TmpfsDirect), fmt.Sprintf("--iodepth=%d", qd),
			"--filename=" + l.TmpfsFile, fmt.Sprintf("--size=%d", l.TmpfsSize)}, extra...)...)
	}
	for _, qd := range []int{1, 16, 128, 1024} {
		name := fmt.Sprintf("uring-tmpfs-randread-4k-qd%d", qd)
		cs = append(cs, Case{Name: name, Args: tmpfsRead(name, qd),
			Metrics: []Metric{metricIOPS, metricLat, metricCPU}, Note: tmpfsNote})
	}
	for _, qd := range []int{1, 16} {
		name := fmt.Sprintf("floor-tmpfs-randread-4k-qd%d", qd)
		note := fmt.Sprintf("the other side is the C liburing floor, bench/liburing/uring_floor randread/depth=%d, not fio", qd)
		if tmpfsNote != "" {
			note = tmpfsNote + "; " + note
		}
		cs = append(cs, Case{Name: name, Args: tmpfsRead(name, qd),
			Metrics: []Metric{metricFloorIOPS}, Note: note, FloorDepth: qd})
	}
	// t/io_uring's defaults: depth 128, batches of 32, fixed buffers and
	// registered files; no IOPOLL, which tmpfs refuses.
	for _, ring := range []PeakRing{{Depth: 128, Batch: 32, FixedBuf: true, RegFiles: true}} {
		name := fmt.Sprintf("peak-tmpfs-randread-4k-qd%d", ring.Depth)
		note := fmt.Sprintf("the other side is fio's t/io_uring %s, not fio", strings.Join(ring.Args(l.TmpfsFile, int(math.Ceil(l.Runtime.Seconds())), l.TmpfsDirect), " "))
		if tmpfsNote != "" {
			note = tmpfsNote + "; " + note
		}
		cs = append(cs, Case{Name: name, Args: tmpfsRead(name, ring.Depth, ring.GofioArgs()...),
			Metrics: []Metric{metricPeakIOPS}, Note: note, Peak: &ring})
	}
	for _, qd := range []int{1, 16, 128, 1024} {
		name := fmt.Sprintf("uring-sqpoll-tmpfs-randread-4k-qd%d", qd)
		cs = append(cs, Case{Name: name, Args: tmpfsRead(name, qd, "--sqthread_poll=1"),
			Metrics: []Metric{metricIOPS, metricLat}, Note: tmpfsNote})
	}
	for _, qd := range []int{1, 32} {
		name := fmt.Sprintf("uring-rootfs-randread-4k-qd%d", qd)
		cs = append(cs, Case{
			Name: name,
			Args: timed(name, "--ioengine=io_uring", "--rw=randread", "--bs=4k", "--direct=1",
				fmt.Sprintf("--iodepth=%d", qd), "--filename="+l.RootFile,
				fmt.Sprintf("--size=%d", l.RootSize)),
			Metrics: []Metric{metricIOPSDevice},
		})
	}
	// gofio's libaio against fio's libaio, and io_uring against
	// libaio inside gofio.
	libaio := func(name, file string, size int64, direct bool, qd int) []string {
		return timed(name, "--ioengine=libaio", "--rw=randread", "--bs=4k", "--direct="+boolArg(direct),
			fmt.Sprintf("--iodepth=%d", qd), "--filename="+file, fmt.Sprintf("--size=%d", size))
	}
	for _, qd := range []int{1, 16, 128} {
		name := fmt.Sprintf("libaio-tmpfs-randread-4k-qd%d", qd)
		cs = append(cs, Case{Name: name, Args: libaio(name, l.TmpfsFile, l.TmpfsSize, l.TmpfsDirect, qd),
			Metrics: []Metric{metricIOPS, metricLat}, Note: tmpfsNote})
	}
	for _, qd := range []int{1, 16, 128} {
		name := fmt.Sprintf("libaio-rootfs-randread-4k-qd%d", qd)
		cs = append(cs, Case{Name: name, Args: libaio(name, l.RootFile, l.RootSize, true, qd),
			Metrics: []Metric{metricIOPSDevice}})
	}
	vs := "gofio-uring-vs-libaio-tmpfs-randread-4k-qd16"
	cs = append(cs, Case{Name: vs, Args: tmpfsRead(vs, 16),
		GofioOther: libaio(vs, l.TmpfsFile, l.TmpfsSize, l.TmpfsDirect, 16),
		Metrics:    []Metric{metricIOPS, metricLat},
		Note:       "both sides are gofio: the gofio column is ioengine=io_uring, the fio column gofio's ioengine=libaio; ratio = io_uring / libaio"})

	name := "uring-rootfs-seqwrite-128k-qd8"
	cs = append(cs, Case{
		Name: name,
		Args: timed(name, "--ioengine=io_uring", "--rw=write", "--bs=128k", "--direct=1",
			"--iodepth=8", "--filename="+l.RootFile, fmt.Sprintf("--size=%d", l.RootSize)),
		Metrics: []Metric{metricBW},
	})
	return cs
}

// SelectCases keeps the cases whose name matches re.
func SelectCases(cs []Case, re *regexp.Regexp) []Case {
	var out []Case
	for _, c := range cs {
		if re.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}
