package report

import (
	"os"
	"path/filepath"
	"testing"

	"gofio/jobfile"
)

func TestLogWindowAndWriteLogs(t *testing.T) {
	j := &JobResult{Job: synthJob("lg", jobfile.RWRead), Logs: &JobLogs{}}
	j.Job.WriteLatLog = "lg"
	j.Job.WriteIOPSLog = "lg"
	// log_avg_msec=500: averaged per window, bs and offset 0.
	win := LogWindow{AvgMsec: 500, Out: &j.Logs.Clat}
	for ms := uint64(0); ms <= 1023; ms++ {
		win.Add(ms, 100+ms%2, jobfile.DirRead, 4096, ms*4096)
	}
	win.Flush(1023)
	raw := LogWindow{Out: &j.Logs.Lat}
	raw.Add(0, 318704, jobfile.DirRead, 4096, 0)
	j.Logs.IOPS = []LogSample{{Msec: 500, Value: 2002}, {Msec: 1000, Value: 2002}}
	dir := t.TempDir()
	if err := WriteLogs(dir, &Result{Jobs: []*JobResult{j}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{"lg_clat.1.log", "500, 100, 0, 0, 0\n1000, 101, 0, 0, 0\n1023, 101, 0, 0, 0\n"}, // windows closed at 500, 1000 and the end
		{"lg_lat.1.log", "0, 318704, 0, 4096, 0\n"},                                      // raw sample, fio's observed line
		{"lg_slat.1.log", ""}, // asked for, no samples
		{"lg_iops.1.log", "500, 2002, 0, 0, 0\n1000, 2002, 0, 0, 0\n"},
	}
	for _, tc := range tests {
		got, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s = %q, want %q", tc.file, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lg_bw.1.log")); !os.IsNotExist(err) {
		t.Errorf("bw log written without write_bw_log")
	}
}
