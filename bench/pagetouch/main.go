// Command pagetouch reads the memory trace of valgrind's lackey tool
// (--trace-mem=yes) on stdin and reports how many distinct 4 KiB pages and
// 64-byte lines the traced program touched, for code and for data, between
// two successive system calls. On a kernel with page-table isolation and a
// CPU without PCID (the 2-vCPU test VM) every kernel entry and exit flushes
// the TLB, so that is the footprint each stretch of user code between two
// io_uring_enter calls refills; it compares gofio with fio independently of
// the machine's load (bench/results.md).
//
// A syscall is recognized by the address of the instruction that follows
// it, given with -after (comma-separated hex; for gofio the instruction
// after SYSCALL in internal/runtime/syscall/linux.Syscall6, from go tool
// objdump; for a PIE binary such as fio, valgrind's load base 0x108000 plus
// the offset objdump -d shows):
//
//	valgrind --tool=lackey --trace-mem=yes --log-fd=9 ./gofio JOB 9>&1 >/dev/null 2>&1 |
//	    go run ./bench/pagetouch -after 0x40da4e -per 2
//
// The first and last fifth of the intervals (set-up and tear-down) are left
// out. -per is how many intervals make one I/O (2 at iodepth 1: one
// submitting enter, one waiting enter); the per-I/O figures are the mean
// interval times -per.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// interval is what one stretch between two syscalls touched.
type interval struct {
	instructions, codePages, dataPages, codeLines, dataLines int
}

// metrics names interval's fields in report order.
var metrics = []struct {
	name string
	get  func(interval) int
}{
	{"instructions", func(v interval) int { return v.instructions }},
	{"code pages", func(v interval) int { return v.codePages }},
	{"data pages", func(v interval) int { return v.dataPages }},
	{"code lines", func(v interval) int { return v.codeLines }},
	{"data lines", func(v interval) int { return v.dataLines }},
}

func main() {
	after := flag.String("after", "", "comma-separated hex addresses of the instruction after a syscall")
	per := flag.Int("per", 1, "syscall intervals per I/O")
	flag.Parse()
	marks, err := parseMarks(*after)
	if err != nil || len(marks) == 0 || *per < 1 {
		fmt.Fprintln(os.Stderr, "pagetouch: -after needs at least one hex address, -per at least 1:", err)
		os.Exit(2)
	}
	ivs, err := scan(os.Stdin, marks)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagetouch:", err)
		os.Exit(1)
	}
	n := len(ivs)
	ivs = ivs[n/5 : n-n/5]
	if len(ivs) == 0 {
		fmt.Fprintf(os.Stderr, "pagetouch: %d syscall intervals found, too few to report\n", n)
		os.Exit(1)
	}
	fmt.Printf("%d syscall intervals (of %d; the first and last fifth left out)\n", len(ivs), n)
	fmt.Printf("%-13s %9s %9s %9s\n", "", "median", "mean", "per I/O")
	for _, m := range metrics {
		med, mean := summarize(ivs, m.get)
		fmt.Printf("%-13s %9d %9.1f %9.1f\n", m.name, med, mean, mean*float64(*per))
	}
}

// parseMarks parses -after.
func parseMarks(s string) (map[uint64]bool, error) {
	marks := map[uint64]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("address %q: %w", f, err)
		}
		marks[v] = true
	}
	return marks, nil
}

// scan reads lackey's trace ("I  addr,size" for an instruction, " L", " S"
// or " M addr,size" for a data access; "==" lines are valgrind's own) and
// cuts it into intervals at each instruction whose address is in marks.
func scan(r io.Reader, marks map[uint64]bool) ([]interval, error) {
	code, data := map[uint64]bool{}, map[uint64]bool{}
	codeL, dataL := map[uint64]bool{}, map[uint64]bool{}
	var cur interval
	var out []interval
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if len(l) < 4 || l[0] == '=' {
			continue
		}
		kind := l[0]
		if kind == ' ' {
			kind = l[1]
		}
		f := strings.TrimSpace(l[2:])
		c := strings.IndexByte(f, ',')
		if c < 0 {
			continue
		}
		a, err := strconv.ParseUint(f[:c], 16, 64)
		if err != nil {
			continue
		}
		size, _ := strconv.ParseUint(f[c+1:], 10, 64)
		last := a + max(size, 1) - 1
		switch kind {
		case 'I':
			if marks[a] {
				cur.codePages, cur.dataPages = len(code), len(data)
				cur.codeLines, cur.dataLines = len(codeL), len(dataL)
				out = append(out, cur)
				cur = interval{}
				clear(code)
				clear(data)
				clear(codeL)
				clear(dataL)
			}
			cur.instructions++
			touch(code, codeL, a, last)
		case 'L', 'S', 'M':
			touch(data, dataL, a, last)
		}
	}
	return out, sc.Err()
}

// touch marks the pages and lines that bytes a..last lie in.
func touch(pages, lines map[uint64]bool, a, last uint64) {
	for p := a >> 12; p <= last>>12; p++ {
		pages[p] = true
	}
	for l := a >> 6; l <= last>>6; l++ {
		lines[l] = true
	}
}

// summarize returns the median and the mean of one metric.
func summarize(ivs []interval, get func(interval) int) (int, float64) {
	v := make([]int, len(ivs))
	sum := 0
	for i, x := range ivs {
		v[i] = get(x)
		sum += v[i]
	}
	sort.Ints(v)
	return v[len(v)/2], float64(sum) / float64(len(v))
}
