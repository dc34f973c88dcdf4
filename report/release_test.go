package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestRelease342JSON checks --fio-release=3.42's JSON: each job's
// job_start after groupid and latency_target_ns/latency_window_us beside
// fio 3.33's keys, none of which fio 3.33's default output has.
func TestRelease342JSON(t *testing.T) {
	r := synthResult()
	r.Jobs[0].JobStart = 1796239262801
	r.Disks[0].ReadSectors, r.Disks[0].WriteSectors = 697528, 695416
	var old, out bytes.Buffer
	if err := WriteJSON(&old, r, false); err != nil {
		t.Fatal(err)
	}
	r.Release = Fio342
	if err := WriteJSON(&out, r, false); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"job_start"`, `"latency_target_ns"`, `"latency_window_us"`, `"read_sectors" : 697528`, `"write_sectors" : 695416`} {
		if strings.Contains(old.String(), k) {
			t.Errorf("fio 3.33's JSON has %s", k)
		}
		if !strings.Contains(out.String(), k) {
			t.Errorf("fio 3.42's JSON lacks %s", k)
		}
	}
	s := out.String()
	if g, js, e := strings.Index(s, `"groupid"`), strings.Index(s, `"job_start" : 1796239262801`), strings.Index(s, `"error"`); !(g < js && js < e) {
		t.Errorf("job_start not between groupid and error as fio 3.42 writes it:\n%s", s[:min(len(s), 600)])
	}
	if w, rs, m := strings.Index(s, `"write_ios"`), strings.Index(s, `"read_sectors"`), strings.Index(s, `"read_merges"`); !(w < rs && rs < m) {
		t.Errorf("read_sectors not between write_ios and read_merges as fio 3.42 writes it")
	}
}

// TestRelease342DiskStats checks the disk stats line of the normal output:
// fio 3.42 writes the sectors moved after the I/Os, fio 3.33 does not.
func TestRelease342DiskStats(t *testing.T) {
	r := synthResult()
	r.Disks[0].ReadSectors, r.Disks[0].WriteSectors = 697528, 695416
	for _, c := range []struct {
		rel  Release
		want string
	}{
		{"", "  vda: ios=87191/86927, merge=0/0, ticks=4190/4213, in_queue=8404, util=86.30%\n"},
		{Fio342, "  vda: ios=87191/86927, sectors=697528/695416, merge=0/0, ticks=4190/4213, in_queue=8404, util=86.30%\n"},
	} {
		r.Release = c.rel
		var b bytes.Buffer
		if err := WriteNormal(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), "Disk stats (read/write):\n"+c.want) {
			t.Errorf("release %q: the disk stats end %q, want %q", c.rel, b.String()[max(0, b.Len()-200):], c.want)
		}
	}
}

// TestRelease342Labels checks the normal output's per-priority label and
// the reading of an ioprio value's hint.
func TestRelease342Labels(t *testing.T) {
	const ioprio = 2<<13 | 3<<3 | 4
	if got := Release("").prioLabel("clat", ioprio); got != "clat prio 2/4" {
		t.Errorf("3.33 label %q", got)
	}
	if got := Fio342.prioLabel("lat", ioprio); got != "lat prio 2/4/3" {
		t.Errorf("3.42 label %q", got)
	}
	for _, c := range []struct {
		ns   uint64
		want string
	}{{0, "0.00ns"}, {1999, "1999.00ns"}, {2000, "2.00us"}, {5000000, "5.00ms"}, {3000000000, "3.00s"}} {
		v, u := scaleDownNs(c.ns)
		if got := fmt.Sprintf("%.2f%s", v, u); got != c.want {
			t.Errorf("scaleDownNs(%d) = %s, want %s", c.ns, got, c.want)
		}
	}
	for _, s := range []string{"", "3.33", "fio-3.33", "3.42", "fio-3.42"} {
		if _, err := ParseRelease(s); err != nil {
			t.Errorf("ParseRelease(%q): %v", s, err)
		}
	}
	if _, err := ParseRelease("3.39"); err == nil {
		t.Error("ParseRelease(3.39) accepted a release gofio does not write")
	}
}

// TestSteadyStateLat checks fio 3.42's steady state on latency in both
// outputs: lat_mean and lat_ns after iops_mean in the JSON's data, and
// the mean latency after the IOPS on the normal output's line, in nsec
// as fio 3.42 leaves it; a window of two samples over a 4 s duration.
func TestSteadyStateLat(t *testing.T) {
	r := synthResult()
	r.Jobs[0].SteadyState = &SteadyState{Lat: true, BySlope: true, Pct: true, Limit: 5, Duration: 4, Attained: true,
		Slope: -12.5, Criterion: -0.734, BW: []uint64{1 << 30, 1 << 30}, IOPSData: []uint64{262144, 262144}, LatData: []uint64{1900, 1915}}
	var js, normal bytes.Buffer
	if err := WriteJSON(&js, r, false); err != nil {
		t.Fatal(err)
	}
	s := js.String()
	s = s[strings.Index(s, `"steadystate"`):]
	for _, k := range []string{`"ss" : "lat_slope:5.000000%"`, `"duration" : 4`, `"lat_mean" : 1907`} {
		if !strings.Contains(s, k) {
			t.Errorf("JSON lacks %s", k)
		}
	}
	im := strings.Index(s, `"iops_mean"`)
	if lm, ln, io := strings.Index(s, `"lat_mean"`), strings.Index(s, `"lat_ns"`), strings.Index(s, `"iops" : [`); !(im < lm && lm < ln && ln < io) {
		t.Errorf("lat_mean and lat_ns not between iops_mean and iops as fio 3.42 writes them")
	}
	if err := WriteNormal(&normal, r); err != nil {
		t.Fatal(err)
	}
	if want := "  steadystate  : attained=yes, bw=1024MiB/s (1049MB/s), iops=262k, lat=1907nsec, lat slope=-0.734%\n"; !strings.Contains(normal.String(), want) {
		t.Errorf("normal output lacks %q", want)
	}
}
