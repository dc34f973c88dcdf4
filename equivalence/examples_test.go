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

// debianExamples is where Debian's fio-examples package (3.33, the same
// files as fio's tag fio-3.33) puts fio's example job files; .ci/run
// installs it.
const debianExamples = "/usr/share/doc/fio/examples"

// fioExamples says where fio 3.33's example job files are read from:
// $FIO_REPO (a clone of axboe/fio, or a directory of the job files), else
// Debian's fio-examples package. The
// job files are read at test time and never copied into gofio's tree. It
// returns "" when there are none.
func fioExamples() string {
	for _, r := range []string{os.Getenv("FIO_REPO"), debianExamples} {
		if r == "" {
			continue
		}
		if _, err := os.Stat(r); err == nil {
			return r
		}
	}
	return ""
}

// fioExample reads fio 3.33's examples/NAME.fio from src, a source
// fioExamples returned: the file in src when src is a directory of job
// files, else the tag fio-3.33 of the git repository src, whoever owns it.
func fioExample(src, name string) (string, error) {
	if b, err := os.ReadFile(filepath.Join(src, name+".fio")); err == nil {
		return string(b), nil
	}
	// safe.directory: a clone another user owns (the suite run as an
	// unprivileged user) is read all the same.
	out, err := exec.Command("git", "-c", "safe.directory=*", "-C", src, "show", "fio-3.33:examples/"+name+".fio").Output()
	if err != nil {
		return "", fmt.Errorf("git -C %s show fio-3.33:examples/%s.fio: %w", src, name, err)
	}
	return string(out), nil
}

// requireFioExamples returns fioExamples' source or skips the test.
func requireFioExamples(t *testing.T) string {
	t.Helper()
	src := fioExamples()
	if src == "" {
		t.Skipf("no fio examples: set FIO_REPO to a clone of axboe/fio or install Debian's fio-examples (%s)", debianExamples)
	}
	return src
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
// on size-based jobs. Without fio or fio's examples (fioExamples) it skips.
func TestFioEngineExamples(t *testing.T) {
	repo := requireFioExamples(t)
	fio, gofio := bins.get(t)
	for _, name := range engineExamples {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := fioExample(repo, name)
			if err != nil {
				t.Fatalf("%v", err)
			}
			row := Row{Name: "example/" + name, JobFile: scaleExample(out)}
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
