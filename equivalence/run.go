package equivalence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Outcome is what one program left after running a row once: its decoded
// JSON document, its raw output and the files of its scratch directory.
type Outcome struct {
	Program string // "fio" or "gofio"
	Doc     Doc
	Stdout  []byte
	Stderr  []byte
	// Dir is the scratch directory: the working directory of the program
	// and the row's --directory, where its data files and logs are.
	Dir string
	// Files maps the name of each data file in Dir to its size; logs
	// (*.log), verify state (*.state) and the row's job file are left out.
	Files map[string]int64
	// Logs holds the *.log files (and log_store_compressed's *.log.fz)
	// the program wrote, read right after it ran (a SameDir row's second
	// program overwrites them).
	Logs map[string][]byte
}

// JobFileName is the name of a row's job file in its scratch directory.
const JobFileName = "job.fio"

// RunTimeout bounds one program's run of one row (see Row.FioHangs for
// the rows where fio gets less).
const RunTimeout = 90 * time.Second

// ErrTimedOut is in the error Run returns when the program ran past its
// time limit and was killed.
var ErrTimedOut = errors.New("timed out")

// Command returns the arguments a program runs a row with in dir.
func (r Row) Command(dir string) []string {
	if r.JobFile != "" {
		return append(append([]string{"--output-format=json"}, r.Args...), JobFileName)
	}
	args := []string{"--name=j", "--directory=" + dir, "--output-format=json"}
	return append(args, r.Args...)
}

// Run runs the row once with the program bin (fio or gofio) in the fresh
// scratch directory dir and collects the outcome.
func Run(ctx context.Context, program, bin string, r Row, dir string) (*Outcome, error) {
	for name, size := range r.Before {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("lay out %s: %w", name, err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			return nil, fmt.Errorf("lay out %s: %w", name, err)
		}
	}
	if r.JobFile != "" {
		if err := os.WriteFile(filepath.Join(dir, JobFileName), []byte(r.JobFile), 0o644); err != nil {
			return nil, fmt.Errorf("write job file: %w", err)
		}
	}
	limit := r.timeout(program)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := r.Command(dir)
	if program == "gofio" && r.release != "" {
		args = append([]string{"--fio-release=" + r.release}, args...)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	// fio runs each job in a process it forks, which keeps stdout open:
	// on a timeout the whole process group goes (a hung job process
	// outlived the suite), and Wait does not wait for the pipes for long.
	// fio's job processes call setsid(), leaving the group: they are
	// found as the program's descendants and killed first (a job hung in
	// fio 3.33's log compression outlived the suite otherwise).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		for _, pid := range descendants(cmd.Process.Pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EQDIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o := &Outcome{Program: program, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Dir: dir}
	var ee *exec.ExitError
	if r.Exit != 0 && errors.As(err, &ee) && ee.ExitCode() == r.Exit {
		err = nil // the row's jobs fail on purpose
	} else if r.Exit != 0 && err == nil {
		err = fmt.Errorf("exit status 0, want %d", r.Exit)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w after %v (%w)", ErrTimedOut, limit, err)
	}
	if err != nil {
		return o, fmt.Errorf("%s %s: %w\nstderr: %s", program, strings.Join(r.Command(dir), " "), err, truncate(o.Stderr))
	}
	if o.Doc, err = ParseDoc(o.Stdout); err != nil {
		return o, fmt.Errorf("%s: %w", program, err)
	}
	if o.Files, o.Logs, err = dataFiles(dir); err != nil {
		return o, err
	}
	return o, nil
}

// descendants returns the processes below pid (its children, theirs, and
// so on), read from /proc, whatever their session or group.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and ")".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func dataFiles(dir string) (map[string]int64, map[string][]byte, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read scratch directory: %w", err)
	}
	files, logs := map[string]int64{}, map[string][]byte{}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || n == JobFileName || strings.HasSuffix(n, ".state") {
			continue
		}
		if strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".log.fz") {
			data, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return nil, nil, fmt.Errorf("read log %s: %w", n, err)
			}
			logs[n] = data
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, nil, fmt.Errorf("stat %s: %w", n, err)
		}
		files[n] = info.Size()
	}
	return files, logs, nil
}

// Compare compares two outcomes of the row: every job's counts, the row's
// exact paths and tolerances, the key structure and the data files. It
// returns one line per difference.
func (r Row) Compare(fio, gofio *Outcome) []string {
	var diffs []string
	fj, gj := fio.Doc.Jobs(), gofio.Doc.Jobs()
	if len(fj) != len(gj) {
		diffs = append(diffs, fmt.Sprintf("jobs: fio %d, gofio %d", len(fj), len(gj)))
	}
	for i := 0; i < len(fj) && i < len(gj); i++ {
		for _, d := range CompareJob(fj[i], gj[i], append([]string(nil), r.Exact...), r.Tol, !r.NoCounts, r.Documented...) {
			diffs = append(diffs, fmt.Sprintf("job %d: %s", i, d))
		}
	}
	if !r.NoKeys {
		diffs = append(diffs, CompareKeys(fio.Doc, gofio.Doc, r.IgnoreKeys)...)
	}
	if !r.NoFiles {
		diffs = append(diffs, CompareFiles(fio.Files, gofio.Files)...)
	}
	return diffs
}
