package cmd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestLogsAgainstFio runs the same short job through gofio's CLI and real
// fio and compares the write_*_log files each wrote: the set of names
// (per-job numbering with numjobs=2) and the column layout of every line.
func TestLogsAgainstFio(t *testing.T) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("fio is not installed: cannot compare the log files with fio's")
	}
	cases := []struct {
		name string
		args []string
		// bsZero: log_avg_msec writes bs 0 on every line.
		bsZero bool
		files  int // lat, clat, slat, bw and iops per job
	}{
		// One line per I/O in every log, numbered per job.
		{name: "per-io", args: []string{"--rw=randrw", "--size=256k", "--numjobs=2"}, files: 10},
		// Averaged windows: latency means and bw/iops every log_avg_msec.
		{name: "avg", args: []string{"--rw=randread", "--size=1m", "--time_based", "--runtime=700ms", "--log_avg_msec=200"}, bsZero: true, files: 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			run := func(prefix string) []string {
				return append([]string{"--name=l", "--ioengine=io_uring", "--bs=4k", "--filename=" + data,
					"--write_lat_log=" + prefix, "--write_bw_log=" + prefix, "--write_iops_log=" + prefix}, c.args...)
			}
			fdir, gdir := filepath.Join(dir, "fio"), filepath.Join(dir, "gofio")
			for _, d := range []string{fdir, gdir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := exec.Command(fio, append(run(filepath.Join(fdir, "t")), "--output=/dev/null")...).CombinedOutput(); err != nil {
				t.Skipf("fio cannot run this job here (%v): %s", err, out)
			}
			if code, _, errs := runCmd(t, run(filepath.Join(gdir, "t"))...); code != 0 {
				t.Fatalf("gofio exit %d: %s", code, errs)
			}
			fn, gn := logNames(t, fdir), logNames(t, gdir)
			if strings.Join(fn, " ") != strings.Join(gn, " ") {
				t.Fatalf("log files %v, fio wrote %v", gn, fn)
			}
			if len(fn) != c.files {
				t.Fatalf("fio wrote %v, want %d files", fn, c.files)
			}
			for _, n := range fn {
				fl, gl := logLines(t, filepath.Join(fdir, n)), logLines(t, filepath.Join(gdir, n))
				if (len(fl) == 0) != (len(gl) == 0) {
					t.Errorf("%s: %d lines, fio %d", n, len(gl), len(fl))
				}
				if len(fl) == 0 {
					continue
				}
				for _, l := range gl {
					f := strings.Split(l, ", ")
					if len(f) != len(strings.Split(fl[0], ", ")) {
						t.Fatalf("%s line %q: %d columns, fio's %q", n, l, len(f), fl[0])
					}
					if f[2] != "0" && f[2] != "1" {
						t.Errorf("%s line %q: ddir %q", n, l, f[2])
					}
					if wantBS := map[bool]string{true: "0", false: "4096"}[c.bsZero]; f[3] != wantBS {
						t.Errorf("%s line %q: bs %q, want %s as fio", n, l, f[3], wantBS)
					}
				}
			}
		})
	}
}

func logNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

func logLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var l []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l = append(l, sc.Text())
	}
	return l
}
