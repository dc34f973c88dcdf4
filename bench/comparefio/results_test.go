package main

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestWriteResultsGolden renders a fixed report and compares it with
// testdata/results.golden.md.
func TestWriteResultsGolden(t *testing.T) {
	rep := Report{
		Command:   "bench/compare-fio -pairs 3",
		Machine:   Machine{Kernel: "6.18.0", CPUs: 2, CPUModel: "Test CPU", MemTotal: "4 GiB", LoadStart: "1.00 0.80 0.50", LoadEnd: "1.20 0.90 0.55", Date: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)},
		GofioPath: "/bin/gofio", GofioVersion: "gofio-0.1",
		FioPath: "/usr/bin/fio", FioVersion: "fio-3.33",
		Pairs: 3, Runtime: 2 * time.Second, Layout: testLayout, RootFS: "ext4",
		Cases: SelectCases(BuildCases(testLayout), mustRegexp(`qd1$|^peak-`)),
		Rows: []Row{
			{Case: "null-randread-4k-qd1", Metric: metricIOPS, Gofio: []float64{5e6, 5.2e6, 4.9e6}, Fio: []float64{4.8e6, 5e6, 5.1e6}},
			{Case: "uring-tmpfs-randread-4k-qd1", Metric: metricIOPS, Gofio: []float64{120e3, 118e3}, Fio: []float64{110e3, 111e3},
				Failures: []string{"fio: exit status 1: fio: pid=1, err=5/file:io_u.c"}},
			{Case: "uring-tmpfs-randread-4k-qd1", Metric: metricLat, Gofio: []float64{7.5, 7.7}, Fio: []float64{8.1, 8.0}},
			{Case: "floor-tmpfs-randread-4k-qd1", Metric: metricFloorIOPS, Gofio: []float64{119e3, 121e3}, Fio: []float64{130e3, 128e3}},
			{Case: "peak-tmpfs-randread-4k-qd128", Metric: metricPeakIOPS, Gofio: []float64{290e3, 300e3}, Fio: []float64{298e3, 301e3}},
		},
		Floor: FloorResult{Ran: true, Lines: []string{"BenchmarkNop/batch=1 356.2 352.9 1.01"}, IOPS: map[int]float64{}},
	}
	var b bytes.Buffer
	if err := WriteResults(&b, rep); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/results.golden.md"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("results differ from %s (go test -update to accept):\n%s", golden, b.String())
	}
}

// TestKeptSections checks that a rewrite of results.md keeps the
// hand-measured sections after keptMarker, and that a file without the
// marker keeps nothing.
func TestKeptSections(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/results.md"
	if got := keptSections(p); got != "" {
		t.Errorf("missing file: kept %q", got)
	}
	kept := keptMarker + "\n\n## sched hand-off\n\n| burst | ns |\n"
	if err := os.WriteFile(p, []byte("# generated\n\nold table\n\n"+kept), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := keptSections(p); got != "\n"+kept {
		t.Errorf("kept %q, want %q", got, "\n"+kept)
	}
	if err := os.WriteFile(p, []byte("# generated only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := keptSections(p); got != "" {
		t.Errorf("no marker: kept %q", got)
	}
}

// TestUnderRoot checks that results.md names the gofio binary relative to
// the checkout when it lies under it, so that no machine path is committed.
func TestUnderRoot(t *testing.T) {
	for _, c := range []struct{ root, p, want string }{
		{"/src/gofio", "/src/gofio/bench/out/gofio", "bench/out/gofio"},
		{"/src/gofio", "/usr/local/bin/gofio", "/usr/local/bin/gofio"},
		{"/src/gofio", "/src/gofio-old/gofio", "/src/gofio-old/gofio"},
	} {
		if got := underRoot(c.root, c.p); got != c.want {
			t.Errorf("underRoot(%q, %q) = %q, want %q", c.root, c.p, got, c.want)
		}
	}
}
