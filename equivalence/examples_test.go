package equivalence

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// engineExamples are fio 3.33's example job files for the engines of issue
// 13 that gofio runs, and that use no job option gofio lacks.
var engineExamples = []string{
	"aio-read", "basic-verify", "fio-rand-RW", "fio-rand-read", "fio-rand-write", "fio-seq-RW",
	"fio-seq-read", "fio-seq-write", "fsx", "iometer-file-access-server", "ssd-test",
	"falloc", "ftruncate", "filecreate-ioengine", "filestat-ioengine", "filedelete-ioengine",
}

// fioRepo returns the fio git repository to read the examples from: $FIO_REPO,
// or the mirror this project's machines keep. The job files are read at
// test time and never copied into gofio's tree.
func fioRepo() string {
	if r := os.Getenv("FIO_REPO"); r != "" {
		return r
	}
	return "/work/.mirror/axboe+fio/repo"
}

// scaleExample rewrites a fio example to run in a second or two on scratch
// files: sizes become 4 MiB, runtimes 1 s, loops at most 2, hundreds of
// files 20, and directory=
// and device filenames go, so that everything lands in the working
// directory.
func scaleExample(text string) string {
	rules := []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`(?m)^(size|filesize)\s*=.*$`), "${1}=4m"},
		{regexp.MustCompile(`(?m)^runtime\s*=.*$`), "runtime=1"},
		{regexp.MustCompile(`(?m)^loops\s*=.*$`), "loops=2"},
		{regexp.MustCompile(`(?m)^nrfiles\s*=\s*\d{3,}\s*$`), "nrfiles=20"},
		{regexp.MustCompile(`(?m)^directory\s*=.*$`), ""},
		{regexp.MustCompile(`(?m)^filename\s*=\s*/dev/.*$`), "filename=scratch.dat\nsize=4m"},
	}
	for _, r := range rules {
		text = r.re.ReplaceAllString(text, r.with)
	}
	return text
}

// TestFioEngineExamples runs fio 3.33's own example job files for issue
// 13's engines with fio and gofio, scaled to scratch size, and compares
// every job's bytes (and, where the block size is fixed, its I/O count)
// on size-based jobs. Without fio or the fio repository it skips.
func TestFioEngineExamples(t *testing.T) {
	repo := fioRepo()
	if _, err := os.Stat(repo); err != nil {
		t.Skipf("no fio repository at %s (set FIO_REPO to a clone of axboe/fio): skipping fio's examples", repo)
	}
	fio, gofio := bins.get(t)
	for _, name := range engineExamples {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("git", "-C", repo, "show", "fio-3.33:examples/"+name+".fio").Output()
			if err != nil {
				t.Skipf("git show fio-3.33:examples/%s.fio: %v", name, err)
			}
			row := Row{Name: "example/" + name, JobFile: scaleExample(string(out))}
			timed := strings.Contains(row.JobFile, "time_based")
			fixedBS := !strings.Contains(row.JobFile, "bssplit") && !strings.Contains(row.JobFile, "bsrange")
			root := scratchRoot(t)
			docs := map[string]Doc{}
			for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
				dir := filepath.Join(root, p.name)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				o, err := Run(context.Background(), p.name, p.bin, row, dir)
				if err != nil && strings.Contains(err.Error(), "does not run them yet") {
					t.Skipf("pending: a job option of this example is not run yet: %v", err)
				}
				if err != nil {
					t.Fatalf("%v", err)
				}
				docs[p.name] = o.Doc
			}
			fj, gj := docs["fio"].Jobs(), docs["gofio"].Jobs()
			if len(fj) != len(gj) {
				t.Fatalf("fio ran %d jobs, gofio %d", len(fj), len(gj))
			}
			for i := range fj {
				for _, f := range []string{"io_bytes", "total_ios"} {
					if f == "total_ios" && !fixedBS {
						continue
					}
					fv, gv := sumDirs(fj[i], f), sumDirs(gj[i], f)
					switch {
					case gv == 0:
						t.Errorf("job %d: gofio did no I/O (%s 0)", i, f)
					case !timed && fv != gv:
						t.Errorf("job %d: %s: fio %v, gofio %v", i, f, fv, gv)
					}
				}
			}
		})
	}
}

// sumDirs adds field over the read, write and trim directions of a job.
func sumDirs(job map[string]any, field string) float64 {
	var s float64
	for _, d := range []string{"read", "write", "trim"} {
		if v, ok := Number(job, fmt.Sprintf("%s.%s", d, field)); ok {
			s += v
		}
	}
	return s
}
