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
	var old, out bytes.Buffer
	if err := WriteJSON(&old, r, false); err != nil {
		t.Fatal(err)
	}
	r.Release = Fio342
	if err := WriteJSON(&out, r, false); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"job_start"`, `"latency_target_ns"`, `"latency_window_us"`} {
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
