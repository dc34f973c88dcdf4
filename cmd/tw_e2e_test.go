package cmd

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPatchJobCompareE2E runs the patch's own job (examples/randread.fio,
// sqpoll=1) at iodepth 64 under --compare on a tmpfs scratch file, size
// based so that every block is read once. With --compare the job runs
// with the SQPOLL goroutine, and the test checks structural facts, not
// timing ratios: FIFO's tw wait p50 is above 0 (completions waited behind
// submissions); priority's first completion after a harvest waited 0;
// every I/O is accounted once (I/Os, slat, clat, lat and tw wait samples
// agree); the comparison carries both sides' tw waits. A plain run of the
// same mode then logs every I/O: lat = slat + clat for each sample.
func TestPatchJobCompareE2E(t *testing.T) {
	scr := scratchDir(t)
	const ios = 4096 // size=16m of 4k reads
	sets := []string{"--set", "filename=" + filepath.Join(scr, "data"), "--set", "size=16m",
		"--set", "iodepth=64", "--set", "time_based=0", "--set", "runtime=0"}
	jsonDir := filepath.Join(scr, "points")
	args := append([]string{"--compare", "--output-format=json", "--json-dir=" + jsonDir}, sets...)
	code, out, errs := runCmd(t, append(args, filepath.Join("examples", "randread.fio"))...)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	for _, side := range []string{"priority", "fifo"} {
		data, err := os.ReadFile(filepath.Join(jsonDir, side, "randread-64-1.json"))
		if err != nil {
			t.Fatal(err)
		}
		jobs := jsonJobs(t, decodeJSON(t, side, data))
		if len(jobs) != 1 {
			t.Fatalf("%s: %d jobs, want 1", side, len(jobs))
		}
		j := jobs[0]
		for _, k := range [][]string{{"read", "total_ios"}, {"read", "slat_ns", "N"}, {"read", "clat_ns", "N"},
			{"read", "lat_ns", "N"}, {"gofio", "tw_wait_ns", "N"}} {
			if n := num(t, j, k...); n != ios {
				t.Errorf("%s: %s = %v, want %d (every I/O once)", side, strings.Join(k, "."), n, ios)
			}
		}
		g := j["gofio"].(map[string]any)
		notes, _ := g["engine_notes"].([]any)
		found := false
		for _, n := range notes {
			found = found || strings.HasPrefix(n.(string), "tw_thread=goroutine:")
		}
		if !found {
			t.Errorf("%s: not run with the SQPOLL goroutine: notes %v", side, notes)
		}
		tw := g["tw_wait_ns"].(map[string]any)
		p50 := num(t, tw, "percentile", "50.000000")
		switch side {
		case "fifo":
			if p50 <= 0 {
				t.Errorf("fifo: tw wait p50 %v ns, want > 0 (completions wait behind queued submissions)", p50)
			}
		case "priority":
			if min := num(t, tw, "min"); min != 0 {
				t.Errorf("priority: shortest tw wait %v ns, want 0 (a harvest's first completion runs next)", min)
			}
		}
	}
	doc := decodeJSON(t, "stdout", []byte(out))
	cmp := doc["gofio_compare"].(map[string]any)
	row := cmp["rows"].([]any)[0].(map[string]any)
	if fifo := num(t, row, "old", "tw_wait_us_mean"); fifo <= 0 {
		t.Errorf("comparison: fifo tw wait %v us, want > 0", fifo)
	}
	if _, ok := row["same_schedule"].(bool); !ok {
		t.Errorf("comparison row lacks same_schedule: %v", row)
	}

	// lat = slat + clat per sample, from the per-I/O logs of a plain run
	// in the same mode.
	logs := filepath.Join(scr, "l")
	args = append([]string{"--output-format=json", "--set", "tw_thread=goroutine", "--set", "write_lat_log=" + logs,
		"--set", "log_offset=1"}, sets...)
	if code, _, errs := runCmd(t, append(args, filepath.Join("examples", "randread.fio"))...); code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	slat := map[string]int64{}
	for _, f := range readLog(t, logs+"_slat.1.log") {
		slat[f[4]] = atoi(t, f[1])
	}
	lat, clat := readLog(t, logs+"_lat.1.log"), readLog(t, logs+"_clat.1.log")
	if len(slat) != ios || len(lat) != ios || len(clat) != ios {
		t.Fatalf("%d slat (distinct offsets), %d lat, %d clat samples, want %d each", len(slat), len(lat), len(clat), ios)
	}
	bad := 0
	for i := range lat {
		off := lat[i][4]
		s, ok := slat[off]
		if clat[i][4] != off || !ok || s+atoi(t, clat[i][1]) != atoi(t, lat[i][1]) {
			bad++
		}
	}
	if bad != 0 {
		t.Errorf("%d of %d samples with lat != slat + clat", bad, ios)
	}
}

// readLog returns the fields of every line of a fio log.
func readLog(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ", ")
		if len(fs) < 5 {
			t.Fatalf("%s: short line %q", path, sc.Text())
		}
		out = append(out, fs)
	}
	return out
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
