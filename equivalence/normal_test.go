package equivalence

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fio 3.33's normal output, line by line, as show_run_stats prints it
// (stat.c): the header (job lines, version, "Starting", set-up notes), a
// blank line, the job blocks one after another, each group's block after
// a blank line, then the disk stats after a blank line.
var (
	fioJobLine   = regexp.MustCompile(`^\S.*: \(g=\d+\): rw=\w+, bs=\(R\) \S+-\S+, \(W\) \S+-\S+, \(T\) \S+-\S+, ioengine=\S+, iodepth=\d+$`)
	fioVersion   = regexp.MustCompile(`^(fio|gofio)-\S+$`)
	fioStarting  = regexp.MustCompile(`^Starting (\d+ threads?( and \d+ process(es)?)?|\d+ process(es)?)$`)
	fioSetupLine = regexp.MustCompile(`^(\S.*: Laying out IO files? \(.*\)|fio: .+|\S.* : Saving output of .+|\S.* \((noop|qsort)\): ioengine=cpuio, .+)$`)
	fioJobHead   = regexp.MustCompile(`^\S.*: \(groupid=\d+, jobs=\d+\): err=[ \d]\d*( \(.*\))?: pid=\d+: .+$`)
	// fioBlockLine is every line show_thread_status_normal prints after
	// a job's first: description, directions, latencies and their
	// percentiles, bandwidth and IOPS samples, the latency and depth
	// distributions, CPU, errors, latency target, block infos and
	// steady state.
	fioBlockLine = regexp.MustCompile(`^(` + strings.Join([]string{
		`  Description  : \[.*\]`,
		`  (read|write|trim|mixed): IOPS=\S+, BW=\S+ \(\S+\)\(\S+/\d+msec\)(; \d+ zone resets)?`,
		`    [^:]+ \((nsec|usec|msec)\): min=.+`,
		`    [^:]+ percentiles \((nsec|usec|msec)\):`,
		`     \|.+`,
		`   bw \(\s*\S+/s\): min=.+`,
		`   iops        : min=.+`,
		`  lat \((nsec|usec|msec)\)\s+: .+`,
		`  fsync/fdatasync/sync_file_range:`,
		`  cpu          : usr=.+`,
		`  IO depths    : .+`,
		`     submit    : .+`,
		`     complete  : .+`,
		`     issued rwts: total=.+`,
		`     errors    : total=.+`,
		`     latency   : target=.+`,
		`  block lifetime percentiles :`,
		`   \|.+`,
		`        states               :.+`,
		`  steadystate  : .+`,
	}, "|") + `)$`)
	fioGroupHead = regexp.MustCompile(`^Run status group \d+ \(all jobs\):$`)
	fioGroupLine = regexp.MustCompile(`^ *(READ|WRITE|TRIM|MIXED): bw=.+, io=.+, run=\d+-\d+msec$`)
	fioDiskHead  = regexp.MustCompile(`^Disk stats \(read/write\):$`)
	fioDiskLine  = regexp.MustCompile(`^ +\S+: ios=\d+/\d+, merge=\d+/\d+, ticks=\d+/\d+, in_queue=\d+, util=[\d.]+%.*$`)
	// gofioExtra is one of gofio's own lines (report's gofioLine).
	gofioExtra = regexp.MustCompile(`^  gofio .+$`)
)

// normalShape is what a strict reading of a normal output found: the job
// blocks' names and the groups, in order.
type normalShape struct {
	Jobs   []string
	Groups []string
	Disks  int
}

// parseNormal reads out as fio 3.33's normal output, strictly: every line
// must be one fio prints where it stands. With extras, gofio's own lines
// are accepted only as one group right after a job's block (between its
// last line and the next block or the blank line before the groups),
// never in the header, inside a block, or among the groups and disks.
func parseNormal(out string, extras bool) (normalShape, error) {
	var sh normalShape
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	i := 0
	bad := func(what string) error {
		return fmt.Errorf("line %d %q: %s", i+1, lines[i], what)
	}
	// The header: job lines, the version, Starting, set-up notes.
	for ; i < len(lines) && (fioJobLine.MatchString(lines[i]) || lines[i] == "..."); i++ {
	}
	if i == len(lines) || !fioVersion.MatchString(lines[i]) {
		return sh, fmt.Errorf("line %d: no version line after the job lines", i+1)
	}
	i++
	if i == len(lines) || !fioStarting.MatchString(lines[i]) {
		return sh, fmt.Errorf("line %d: no Starting line after the version", i+1)
	}
	for i++; i < len(lines) && lines[i] != ""; i++ {
		if !fioSetupLine.MatchString(lines[i]) {
			return sh, bad("not a set-up line of fio's header")
		}
	}
	// The job blocks, each with gofio's group after it.
	for i++; i < len(lines) && lines[i] != ""; {
		if !fioJobHead.MatchString(lines[i]) {
			return sh, bad("not a job block's first line")
		}
		sh.Jobs = append(sh.Jobs, lines[i][:strings.Index(lines[i], ": (groupid=")])
		for i++; i < len(lines) && fioBlockLine.MatchString(lines[i]); i++ {
		}
		for ; extras && i < len(lines) && gofioExtra.MatchString(lines[i]); i++ {
		}
		if i < len(lines) && lines[i] != "" && !fioJobHead.MatchString(lines[i]) {
			return sh, bad("inside or after a job block, not one of fio's lines")
		}
	}
	// The groups and the disk stats, each after a blank line.
	for i < len(lines) {
		if lines[i] != "" || i+1 == len(lines) {
			return sh, bad("want a blank line before a group or the disk stats")
		}
		i++
		switch {
		case fioGroupHead.MatchString(lines[i]) && sh.Disks == 0:
			sh.Groups = append(sh.Groups, lines[i])
			for i++; i < len(lines) && fioGroupLine.MatchString(lines[i]); i++ {
			}
		case fioDiskHead.MatchString(lines[i]) && sh.Disks == 0:
			for i++; i < len(lines) && fioDiskLine.MatchString(lines[i]); i++ {
				sh.Disks++
			}
			if sh.Disks == 0 {
				return sh, fmt.Errorf("line %d: disk stats without a disk", i)
			}
		default:
			return sh, bad("not a group's or the disk stats' first line")
		}
	}
	return sh, nil
}

// normalJobs are jobs whose normal output covers fio's blocks: two groups
// (stonewall), random mixed I/O, clones with group_reporting, an async
// engine, a description, fsync's latencies, a job that fails (--readonly
// on a short file: fio's error lines on stdout).
var normalJobs = []struct {
	name   string
	before int // bytes of the file "f" made first
	args   []string
}{
	{"groups", 0, []string{"--ioengine=psync", "--bs=4k", "--size=512k", "--name=a", "--rw=randrw", "--description=mixed", "--name=b", "--stonewall", "--rw=write", "--fsync=8"}},
	{"clones", 0, []string{"--name=c", "--ioengine=io_uring", "--iodepth=8", "--rw=randread", "--bs=4k", "--size=1m", "--numjobs=2", "--group_reporting"}},
	{"failed", 128 << 10, []string{"--readonly", "--name=r", "--filename=f", "--rw=read", "--bs=4k", "--size=256k"}},
}

// TestNormalOutputGrammar reads fio 3.33's and gofio's normal output of
// the same jobs with fio's grammar, strictly (parseNormal): fio's output
// has no line the grammar lacks, gofio's has its own lines only right
// after each job's block, and both have the same job blocks and groups in
// the same order. gofio's json+ output of the clones goes through fio's
// own tools/fio_jsonplus_clat2csv, whose --validate checks every count.
func TestNormalOutputGrammar(t *testing.T) {
	fio, gofio := bins.get(t)
	for _, job := range normalJobs {
		t.Run(job.name, func(t *testing.T) {
			var shapes [2]normalShape
			for k, bin := range []string{fio, gofio} {
				dir := scratchRoot(t)
				if job.before > 0 {
					if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, job.before), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				out := runNormal(t, bin, dir, append([]string{"--directory=" + dir}, job.args...))
				sh, err := parseNormal(out, k == 1)
				if err != nil {
					t.Fatalf("%s's normal output is not fio 3.33's grammar: %v\n%s", filepath.Base(bin), err, out)
				}
				shapes[k] = sh
			}
			if fmt.Sprint(shapes[0].Jobs, shapes[0].Groups) != fmt.Sprint(shapes[1].Jobs, shapes[1].Groups) {
				t.Errorf("job blocks and groups: fio %v %v, gofio %v %v", shapes[0].Jobs, shapes[0].Groups, shapes[1].Jobs, shapes[1].Groups)
			}
		})
	}
	t.Run("jsonplus-clat2csv", func(t *testing.T) {
		tool, err := exec.LookPath("fio_jsonplus_clat2csv")
		if err != nil {
			t.Skip("fio_jsonplus_clat2csv (Debian's fio package) is not installed: skipping")
		}
		dir := scratchRoot(t)
		out := runNormal(t, gofio, dir, append([]string{"--directory=" + dir, "--output-format=json+"}, normalJobs[1].args...))
		in := filepath.Join(dir, "out.json")
		if err := os.WriteFile(in, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		csv := filepath.Join(dir, "clat.csv")
		if msg, err := exec.Command("python3", tool, in, csv).CombinedOutput(); err != nil {
			t.Fatalf("fio_jsonplus_clat2csv: %v\n%s", err, msg)
		}
		msg, err := exec.Command("python3", tool, in, csv, "--validate").CombinedOutput()
		if err != nil || !strings.Contains(string(msg), "validated") || strings.Contains(string(msg), "mismatch") {
			t.Fatalf("fio_jsonplus_clat2csv --validate: %v\n%s", err, msg)
		}
	})
}

// runNormal runs bin with args in dir and returns its stdout; a failing
// job's exit status is expected, a program that does not end is not.
func runNormal(t *testing.T, bin, dir string, args []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); ctx.Err() != nil {
		t.Fatalf("%s %s: no end after %s: %v\n%s", bin, strings.Join(args, " "), time.Since(start).Round(time.Second), err, stderr.String())
	}
	return stdout.String()
}

// TestParseNormalStrict checks the strict reading itself on fio-shaped
// text: a gofio line in the header, inside a job block or among the
// groups is refused, and one after a block only where gofio's lines are
// allowed.
func TestParseNormalStrict(t *testing.T) {
	head := "j: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n\n"
	block := "j: (groupid=0, jobs=1): err= 0: pid=1: Wed Dec  2 18:41:23 2026\n  read: IOPS=205k, BW=800MiB/s (839MB/s)(8192KiB/10msec)\n  cpu          : usr=22.22%, sys=22.22%, ctx=2, majf=0, minf=18\n"
	group := "\nRun status group 0 (all jobs):\n   READ: bw=800MiB/s (839MB/s), 800MiB/s-800MiB/s (839MB/s-839MB/s), io=8192KiB (8389kB), run=10-10msec\n"
	extra := "  gofio policy : tw=priority, dropped_cqes=0\n"
	for _, c := range []struct {
		name, out string
		extras    bool
		ok        bool
	}{
		{"fio", head + block + group, false, true},
		{"after the block", head + block + extra + group, true, true},
		{"after the block, fio's grammar", head + block + extra + group, false, false},
		{"in the header", strings.Replace(head, "fio-3.33", strings.TrimSuffix(extra, "\n")+"\nfio-3.33", 1) + block + group, true, false},
		{"inside the block", strings.Replace(block, "  cpu", strings.TrimSuffix(extra, "\n")+"\n  cpu", 1), true, false},
		{"among the groups", head + block + group + extra, true, false},
	} {
		out := c.out
		if c.name == "inside the block" {
			out = head + c.out + group
		}
		if _, err := parseNormal(out, c.extras); (err == nil) != c.ok {
			t.Errorf("%s: parse error %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
