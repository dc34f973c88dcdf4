package report

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

func TestLogWindowAndWriteLogs(t *testing.T) {
	j := &JobResult{Job: synthJob("lg", jobfile.RWRead), Logs: &JobLogs{}}
	j.Job.WriteLatLog = "lg"
	j.Job.WriteIOPSLog = "lg"
	j.Job.PerJobLogs = true
	// log_avg_msec=500: averaged per window, bs and offset 0.
	win := LogWindow{AvgMsec: 500, Out: &j.Logs.Clat}
	for ms := uint64(0); ms <= 1023; ms++ {
		win.Add(ms, 100+ms%2, jobfile.DirRead, 4096, ms*4096, 0)
	}
	win.Flush(1023)
	raw := LogWindow{Out: &j.Logs.Lat}
	raw.Add(0, 318704, jobfile.DirRead, 4096, 0, 0)
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

// TestWriteLogsOptions covers log_offset (the offset column before prio),
// log_max_value (a window's maximum) and per_job_logs=0 (one file per kind
// that every job, and every later run, appends to), each checked against
// fio 3.33's output for the same options.
func TestWriteLogsOptions(t *testing.T) {
	dir := t.TempDir()
	job := func(name string, perJob, offset bool) *JobResult {
		j := &JobResult{Job: synthJob(name, jobfile.RWRead), Logs: &JobLogs{LogOffset: offset}}
		j.Job.WriteLatLog, j.Job.PerJobLogs = "pl", perJob
		return j
	}
	// log_offset=1, per I/O: "msec, value, ddir, bs, offset, prio".
	a := job("a", false, true)
	raw := LogWindow{Out: &a.Logs.Lat}
	raw.Add(0, 1362, jobfile.DirRead, 4096, 45056, 0)
	// A second job sharing the file (per_job_logs=0), log_max_value over
	// a 250 ms window, without log_offset.
	b := job("b", false, false)
	win := LogWindow{AvgMsec: 250, Max: true, Out: &b.Logs.Lat}
	for ms, v := range []uint64{100, 900, 300} {
		win.Add(uint64(ms), v, jobfile.DirRead, 4096, 0, 0)
	}
	win.Flush(250)
	res := &Result{Jobs: []*JobResult{a, b}}
	for run := 1; run <= 2; run++ {
		if err := WriteLogs(dir, res); err != nil {
			t.Fatal(err)
		}
	}
	one := "0, 1362, 0, 4096, 45056, 0\n" + "250, 900, 0, 0, 0\n"
	got, err := os.ReadFile(filepath.Join(dir, "pl_lat.log"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != one+one {
		t.Errorf("pl_lat.log after two runs = %q, want %q", got, one+one)
	}
	if _, err := os.Stat(filepath.Join(dir, "pl_lat.1.log")); !os.IsNotExist(err) {
		t.Errorf("per_job_logs=0 wrote a numbered log")
	}
}

// TestLogPrio checks the priority column as fio 3.33 writes it.
func TestLogPrio(t *testing.T) {
	for _, c := range []struct {
		j     jobfile.Job
		perIO bool
		want  string
	}{
		{jobfile.Job{}, true, "0"},
		{jobfile.Job{PrioSet: true, PrioClass: 1, Prio: 4}, true, "1"},
		{jobfile.Job{PrioSet: true, PrioClass: 2, Prio: 4}, true, "0"},
		{jobfile.Job{PrioSet: true, PrioClass: 2, Prio: 4, LogPrio: true}, true, "0x4004"},
		{jobfile.Job{PrioSet: true, PrioClass: 2, Prio: 4, LogPrio: true}, false, "0x0000"},
	} {
		if got := formatPrio(&c.j, logPrioValue(&c.j, c.perIO)); got != c.want {
			t.Errorf("%+v perIO=%v: %q, want %q", c.j.PrioClass, c.perIO, got, c.want)
		}
	}
}

// TestWriteLogsEpoch checks that a job's EpochMsec (log_unix_epoch) is
// added to every time written, as fio's __add_log_sample adds its
// alternate_epoch.
func TestWriteLogsEpoch(t *testing.T) {
	j := &JobResult{Job: synthJob("ep", jobfile.RWRead), Logs: &JobLogs{EpochMsec: 1796156687000}}
	j.Job.WriteLatLog, j.Job.PerJobLogs = "ep", true
	j.Logs.Clat = []LogSample{{Msec: 0, Value: 5}, {Msec: 12, Value: 6, Dir: jobfile.DirWrite, BS: 4096}}
	dir := t.TempDir()
	if err := WriteLogs(dir, &Result{Jobs: []*JobResult{j}}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "ep_clat.1.log"))
	if want := "1796156687000, 5, 0, 0, 0\n1796156687012, 6, 1, 4096, 0\n"; err != nil || string(got) != want {
		t.Errorf("ep_clat.1.log = %q, %v; want %q", got, err, want)
	}
}

// TestWriteStoredLog writes a log_store_compressed log of 3000 samples
// with log_entries=1024: zlib streams of 1024 and 1976 samples (fio's
// chunks double), each fio's 40-byte struct io_sample_offset with the
// offset and prio bits in the direction word.
func TestWriteStoredLog(t *testing.T) {
	var samples []LogSample
	for i := range 3000 {
		samples = append(samples, LogSample{Msec: uint64(i), Value: uint64(1000 + i), Dir: jobfile.Dir(i % 2), BS: 4096, Offset: uint64(i) * 4096})
	}
	j := &jobfile.Job{LogOffset: true, LogPrio: true, LogEntries: 1024, PerJobLogs: true}
	name := filepath.Join(t.TempDir(), "l_clat.1.log.fz")
	if err := writeStoredLog(name, samples, j, 0x2004, 7); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(data)
	var streams []int
	var recs []byte
	for r.Len() > 0 {
		zr, err := zlib.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, len(b)/40)
		recs = append(recs, b...)
	}
	if !slices.Equal(streams, []int{1024, 1976}) {
		t.Fatalf("streams of %v samples, want [1024 1976]", streams)
	}
	for i, s := range samples {
		rec := recs[i*40:]
		le := binary.LittleEndian
		if le.Uint64(rec) != s.Msec+7 || le.Uint64(rec[8:]) != s.Value || le.Uint32(rec[16:]) != uint32(s.Dir)|0xC0000000 ||
			le.Uint16(rec[20:]) != 0x2004 || le.Uint64(rec[24:]) != 4096 || le.Uint64(rec[32:]) != s.Offset {
			t.Fatalf("sample %d: record % x, want %+v", i, rec[:40], s)
		}
	}
}
