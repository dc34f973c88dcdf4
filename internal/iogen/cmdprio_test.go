package iogen

import (
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestCmdprioIsFios checks cmdprio's draws against fio 3.33's prio_state:
// fio --name=p --ioengine=io_uring --rw=randread --bs=4k --size=1m
// --cmdprio_percentage=30 gives 68 of its 256 reads priority 1/0 (the
// "prios" array of its JSON), the other 188 the job's own 0/0.
func TestCmdprioIsFios(t *testing.T) {
	jobs := parse(t, "[p]\nioengine=io_uring\nrw=randread\nbs=4k\nsize=1m\ncmdprio_percentage=30\n")
	c, err := NewCmdprio(jobs[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Prios[jobfile.DirRead]) != 2 || c.Prios[jobfile.DirRead][1] != 1<<13 || c.on[jobfile.DirWrite] {
		t.Fatalf("priorities %v, write on %v: want the job's 0 and 1<<13 for reads only", c.Prios, c.on[jobfile.DirWrite])
	}
	var n [2]int
	for i := 0; i < 256; i++ {
		p, idx := c.Pick(jobfile.DirRead, 4096)
		if (p == 0) != (idx == 0) {
			t.Fatalf("I/O %d: priority %#x with index %d", i, p, idx)
		}
		n[idx]++
	}
	if n != [2]int{188, 68} {
		t.Errorf("%v I/Os per priority, fio's are [188 68]", n)
	}
}

// TestCmdprioBSSplitPicks checks that cmdprio_bssplit draws only for the
// block sizes it lists and picks each entry's priority in its share, with
// the job's prioclass/prio as the first (uncommanded) priority.
func TestCmdprioBSSplitPicks(t *testing.T) {
	jobs := parse(t, "[p]\nioengine=libaio\nrw=randrw\nprioclass=2\nprio=1\nsize=1m\ncmdprio_bssplit=4k/50/1/0:4k/50/3/0,8k/100\n")
	c, err := NewCmdprio(jobs[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	own := uint16(2<<13 | 1)
	if got := c.Prios[jobfile.DirRead]; len(got) != 3 || got[0] != own || got[1] != 1<<13 || got[2] != 3<<13 {
		t.Errorf("read priorities %#x", got)
	}
	if got := c.Prios[jobfile.DirWrite]; len(got) != 2 || got[1] != 1<<13 {
		t.Errorf("write priorities %#x: 8k/100 takes cmdprio_class's default, real-time", got)
	}
	seen := map[uint16]int{}
	for i := 0; i < 1000; i++ {
		if p, _ := c.Pick(jobfile.DirRead, 8192); p != 0 {
			t.Fatalf("an 8k read got priority %#x: reads list only 4k", p)
		}
		p, _ := c.Pick(jobfile.DirRead, 4096)
		seen[p]++
	}
	if seen[0] != 0 || seen[1<<13] < 400 || seen[3<<13] < 400 {
		t.Errorf("4k reads per priority %v: want about half 1<<13 and half 3<<13, none left alone", seen)
	}
}

// parse returns the jobs of a job file's text.
func parse(t *testing.T, text string) []*jobfile.Job {
	t.Helper()
	jobs, err := jobfile.Parse(jobfile.Input{Files: []string{"-"}, Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
