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
