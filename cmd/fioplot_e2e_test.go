package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fioPlotDriver runs fio-plot's own import code, as its command line runs
// it, on the directories of argv and prints what it read as JSON: fio-plot's
// argument parser and default settings, then jsonimport.list_json_files,
// import_json_dataset and jsonparsing.parse_json_data, the path of
// get_json_data in fio_plot/fiolib/getdata.py. getdata itself is not
// imported: it pulls in matplotlib for the drawing, which the import does
// not need.
const fioPlotDriver = `
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["FIO_PLOT_DIR"], "fio_plot"))
from fiolib import argparsing, defaultsettings, jsonimport, jsonparsing
settings = defaultsettings.get_default_settings()
settings = {**settings, **vars(argparsing.set_arguments(settings).parse_args(sys.argv[1:]))}
settings["graphtype"] = defaultsettings.get_graphtype(settings)
settings["iodepth"] = settings["iodepth"] or [1]
settings["numjobs"] = settings["numjobs"] or [1]
data = jsonparsing.parse_json_data(settings, jsonimport.import_json_dataset(settings, jsonimport.list_json_files(settings)))
print(json.dumps([{"directory": d["directory"], "rows": [{"iodepth": int(r["iodepth"]), "numjobs": int(r["numjobs"]), "iops": r["iops"]} for r in d["data"]]} for d in data]))
`

// TestJSONDirFioPlot runs fio-plot's import code (a checkout named by
// $FIO_PLOT_DIR, e.g. git clone https://github.com/louwrentius/fio-plot)
// on --json-dir output with the commands docs/options.md gives: -C on the two
// sides' directories of a --compare, -l on the directory of a sweep. Both
// are run with --repeat, whose repeats sit below in repeat-N/. fio-plot
// must read one row per swept depth from each directory.
func TestJSONDirFioPlot(t *testing.T) {
	checkout := os.Getenv("FIO_PLOT_DIR")
	python, err := exec.LookPath("python3")
	switch {
	case checkout == "":
		t.Skip("SKIP: $FIO_PLOT_DIR does not name a fio-plot checkout (git clone https://github.com/louwrentius/fio-plot); fio-plot's import was not run on --json-dir")
	case err != nil:
		t.Skip("SKIP: no python3 to run fio-plot's import with")
	}
	if _, err := os.Stat(filepath.Join(checkout, "fio_plot", "fiolib", "jsonimport.py")); err != nil {
		t.Fatalf("$FIO_PLOT_DIR=%s is not a fio-plot checkout: %v", checkout, err)
	}
	depths := []string{"1", "4", "16"}
	job := []string{"--name=plot", "--ioengine=null", "--rw=randread", "--size=1m", "--sweep", "iodepth=" + strings.Join(depths, ","),
		"--repeat", "3", "--output-format=compare"}
	for _, tt := range []struct {
		name  string
		flags []string
		plot  func(dir string) []string // fio-plot's arguments, docs/options.md's command
		dirs  []string                  // the directories it reads, under dir
	}{
		{"compare", []string{"--compare"}, func(dir string) []string {
			return []string{"-i", filepath.Join(dir, "priority"), filepath.Join(dir, "fifo"), "-T", "priority vs fifo", "-C", "-r", "randread", "-d", "1", "4", "16"}
		}, []string{"priority", "fifo"}},
		{"sweep", nil, func(dir string) []string {
			return []string{"-i", dir, "-T", "sweep", "-l", "-r", "randread", "-d", "1", "4", "16"}
		}, []string{"."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plot")
			args := append(append([]string{"--json-dir", dir}, tt.flags...), job...)
			if code, _, errs := runCmdWith(t, fakeEngine(100, 120), args...); code != ExitOK {
				t.Fatalf("gofio %s: exit %d: %s", strings.Join(args, " "), code, errs)
			}
			cmd := exec.Command(python, append([]string{"-c", fioPlotDriver}, tt.plot(dir)...)...)
			cmd.Env = append(os.Environ(), "FIO_PLOT_DIR="+checkout)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("fio-plot's import on %s: %v\n%s\n%s", dir, err, out, stderr)
			}
			var got []struct {
				Directory string
				Rows      []struct {
					IODepth, NumJobs int
					IOPS             float64
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("fio-plot driver output: %v\n%s", err, out)
			}
			if len(got) != len(tt.dirs) {
				t.Fatalf("fio-plot read %d directories, want %d: %s", len(got), len(tt.dirs), out)
			}
			for i, d := range got {
				if want, _ := filepath.Abs(filepath.Join(dir, tt.dirs[i])); d.Directory != want {
					t.Errorf("directory %d is %s, want %s", i, d.Directory, want)
				}
				// fio-plot sorts only the last directory's rows by depth;
				// the others keep file-name order.
				slices.SortFunc(d.Rows, func(a, b struct {
					IODepth, NumJobs int
					IOPS             float64
				}) int {
					return a.IODepth - b.IODepth
				})
				var seen []string
				for _, r := range d.Rows {
					if r.NumJobs != 1 || r.IOPS <= 0 {
						t.Errorf("%s: row %+v", d.Directory, r)
					}
					seen = append(seen, strconv.Itoa(r.IODepth))
				}
				if strings.Join(seen, ",") != strings.Join(depths, ",") {
					t.Errorf("%s: fio-plot read depths %v, want %v (one file each)", d.Directory, seen, depths)
				}
			}
		})
	}
}
