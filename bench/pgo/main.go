// Command pgo writes default.pgo, the CPU profile that go build uses for
// profile-guided optimization of the gofio binary (-pgo=auto reads the
// main package's default.pgo). It runs gofio's own command, in this
// process and under the CPU profiler, on the jobs whose per-I/O cost
// bench/results.md follows: 4 KiB random reads on the null engine and on
// io_uring over a tmpfs file, at depths 1, 16 and 128, each for -runtime.
// The io_uring jobs are left out where the kernel refuses a ring.
//
//	go run ./bench/pgo                  # writes ./default.pgo (about 40 s)
//	go run ./bench/pgo -o /tmp/x.pgo -runtime 1s
//
// Refresh it after the loop's hot path changes much: a stale profile
// still builds, it only guides less (bench/results.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/gofio/gofio/cmd"
	"github.com/gofio/gofio/internal/uring"
)

func main() {
	out := flag.String("o", "default.pgo", "profile to write")
	runtime := flag.Duration("runtime", 5*time.Second, "runtime of each job")
	dir := flag.String("dir", "/dev/shm", "tmpfs directory for the io_uring jobs' file")
	flag.Parse()
	if err := profile(*out, *runtime, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "pgo:", err)
		os.Exit(1)
	}
}

// profile runs the jobs under the CPU profiler and writes the profile to
// out.
func profile(out string, runtime time.Duration, dir string) error {
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create profile: %w", err)
	}
	defer f.Close()
	file := filepath.Join(dir, fmt.Sprintf("gofio-pgo-%d.dat", os.Getpid()))
	defer os.Remove(file)
	common := []string{"gofio", "--name=pgo", "--rw=randread", "--bs=4k", "--time_based",
		fmt.Sprintf("--runtime=%dms", runtime.Milliseconds()), "--output=/dev/null"}
	var jobs [][]string
	for _, qd := range []int{1, 16, 128} {
		jobs = append(jobs, append(common[:len(common):len(common)], "--ioengine=null", "--size=1g", fmt.Sprintf("--iodepth=%d", qd)))
	}
	if uring.ProbeSupport().Available() {
		for _, qd := range []int{1, 16, 128} {
			jobs = append(jobs, append(common[:len(common):len(common)], "--ioengine=io_uring", "--direct=1", "--size=256m",
				"--filename="+file, fmt.Sprintf("--iodepth=%d", qd)))
		}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("start profile: %w", err)
	}
	for _, args := range jobs {
		if code := cmd.Main(args, func(int) {}); code != 0 {
			pprof.StopCPUProfile()
			return fmt.Errorf("%v: exit %d", args[1:], code)
		}
	}
	pprof.StopCPUProfile()
	return f.Close()
}
