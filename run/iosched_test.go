package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
)

// TestIOScheduler runs ioscheduler= on a loop device as fio 3.33 does: a
// scheduler the kernel offers is switched to before the I/O and stays
// after the job; one it does not offer fails the job with fio's message
// and err=22 in func iosched_switch, before any I/O.
func TestIOScheduler(t *testing.T) {
	d := loopdev.New(t, 4<<20)
	sched := fmt.Sprintf("/sys/block/loop%d/queue/scheduler", d.Number)
	before, err := os.ReadFile(sched)
	if err != nil || !strings.Contains(string(before), "mq-deadline") {
		t.Skipf("loop%d offers no mq-deadline to switch to: %q %v", d.Number, before, err)
	}
	run := func(name string) (*jobfile.Job, string, int, uint64) {
		j := testJob("", "sched", jobfile.RWRead, "psync")
		j.Filenames, j.Size, j.IOScheduler = []string{d.Path}, 1<<20, name
		var warn bytes.Buffer
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		return j, warn.String(), r.Error, r.Dirs[0].TotalIOs
	}
	if _, warn, errno, ios := run("mq-deadline"); errno != 0 || ios != 256 {
		t.Fatalf("ioscheduler=mq-deadline: err=%d, %d reads (want 256); %s", errno, ios, warn)
	}
	if after, _ := os.ReadFile(sched); !strings.Contains(string(after), "[mq-deadline]") {
		t.Errorf("ioscheduler=mq-deadline left %q", after)
	}
	_, warn, errno, ios := run("nosuch")
	if errno != 22 || ios != 0 || !strings.Contains(warn, "fio: unable to set io scheduler to nosuch") {
		t.Errorf("ioscheduler=nosuch: err=%d, %d reads, warnings %q; want err=22, none and fio's message", errno, ios, warn)
	}
}
