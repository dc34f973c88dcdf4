package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// gofioBinary returns the gofio binary to use: path when set, else one
// built into bench/out/gofio from the module root.
func gofioBinary(ctx context.Context, path string, log io.Writer) (string, error) {
	if path != "" {
		return filepath.Abs(path)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, err := FindModuleRoot(cwd)
	if err != nil {
		return "", err
	}
	out := filepath.Join(root, "bench/out/gofio")
	fmt.Fprintln(log, "building gofio: go build -o bench/out/gofio .")
	if err := BuildGofio(ctx, root, out, log); err != nil {
		return "", err
	}
	return out, nil
}

// ReadRSS returns the resident set size of process pid in bytes, from
// /proc/PID/status.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read rss: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read rss: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("read rss: no VmRSS for pid %d", pid)
}

// DropCounters walks the per-job "gofio" extras and returns every numeric
// field whose key mentions drops or overflows, with its path. A run that
// lost CQEs has one of them non-zero.
func DropCounters(extras []json.RawMessage) map[string]float64 {
	out := map[string]float64{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case float64:
			low := strings.ToLower(path)
			if strings.Contains(low, "drop") || strings.Contains(low, "overflow") {
				out[path] = x
			}
		}
	}
	for i, raw := range extras {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			walk(fmt.Sprintf("jobs[%d].gofio", i), v)
		}
	}
	return out
}

// ReadLogValues reads the time (ms) and value columns of a fio
// iops/bw/lat log ("time, value, ddir, bs, offset[, prio]" per line).
func ReadLogValues(path string) (ms []int64, vals []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 2 {
			continue
		}
		t, err1 := strconv.ParseInt(strings.TrimSpace(fields[0]), 10, 64)
		v, err2 := strconv.ParseFloat(strings.TrimSpace(fields[1]), 64)
		if err1 != nil || err2 != nil {
			return nil, nil, fmt.Errorf("read log %s:%d: bad line %q", path, n, sc.Text())
		}
		ms = append(ms, t)
		vals = append(vals, v)
	}
	return ms, vals, sc.Err()
}
