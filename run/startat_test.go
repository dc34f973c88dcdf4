package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// TestStartAt checks the wait for --start-at comes after layout and engine
// setup, and that no job issues I/O before the start time.
func TestStartAt(t *testing.T) {
	dir := t.TempDir()
	j := testJob(dir, "s", jobfile.RW("randread"), "psync")
	at := time.Now().Add(300 * time.Millisecond)
	var waited int
	opts := Options{StartAt: at, sleep: func(d time.Duration) {
		if waited == 0 {
			if _, err := os.Stat(j.Filenames[0]); err != nil {
				t.Errorf("waiting before the layout: %v", err)
			}
		}
		waited++
		time.Sleep(d)
	}}
	res := mustRun(t, []*jobfile.Job{j}, opts)
	if waited == 0 {
		t.Fatal("no wait for StartAt")
	}
	first := res.Jobs[0].FirstIO
	if first.Before(at) {
		t.Errorf("first I/O at %v, %v before StartAt", first, at.Sub(first))
	}
	if res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs == 0 {
		t.Error("no I/O")
	}
}

// TestStartAtLate checks a start time already past: an error before any
// I/O, or with StartLate a run that starts at once and says so.
func TestStartAtLate(t *testing.T) {
	dir := t.TempDir()
	at := time.Now().Add(-time.Second)
	_, err := Run(context.Background(), []*jobfile.Job{testJob(dir, "late", jobfile.RW("read"), "psync")}, Options{StartAt: at})
	if !errors.Is(err, ErrStartLate) {
		t.Fatalf("err = %v, want ErrStartLate", err)
	}
	var warn bytes.Buffer
	res := mustRun(t, []*jobfile.Job{testJob(dir, "late", jobfile.RW("read"), "psync")}, Options{StartAt: at, StartLate: true, Warn: &warn})
	if res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs == 0 {
		t.Error("no I/O with StartLate")
	}
	if !strings.Contains(warn.String(), "--start-at-late=run") {
		t.Errorf("no lateness note: %q", warn.String())
	}
}
