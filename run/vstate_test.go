package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestVerifyOnlyAndState: a verify write job that stops after 10 of its
// 32 blocks (number_ios=10, as a job killed part way) saves its state;
// verify_only=1 then names the 22 blocks never written and passes the 10
// written; with verify_state_load=1 it checks exactly the 10.
func TestVerifyOnlyAndState(t *testing.T) {
	dir := t.TempDir()
	aux := t.TempDir()
	job := func(name string) *jobfile.Job {
		j := testJob(dir, "vs", jobfile.RWRandWrite, "psync")
		j.Name = name
		j.Filenames = []string{filepath.Join(dir, "vs.dat")}
		j.Size = 128 << 10
		j.Verify = "crc32c"
		j.DoVerify = false
		return j
	}
	w := job("crashy")
	w.NumberIOs = 10
	w.VerifyStateSave = true
	res := mustRun(t, []*jobfile.Job{w}, Options{AuxPath: aux})
	if n := res.Jobs[0].Dirs[1].TotalIOs; n != 10 {
		t.Fatalf("write phase: %d writes, want 10", n)
	}
	state := filepath.Join(aux, "local-crashy-0-verify.state")
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("state file: %v", err)
	}

	v := job("crashy")
	v.DoVerify = true
	v.VerifyOnly = true
	v.ContinueOnError = jobfile.ContinueVerify
	var warn syncBuf
	res, err := Run(context.Background(), []*jobfile.Job{v}, Options{AuxPath: aux, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.TotalErr != 22 || r.Dirs[0].TotalIOs != 32 || r.Dirs[1].TotalIOs != 0 {
		t.Errorf("verify_only: %d bad of %d read, %d written; want 22 of 32, none written", r.TotalErr, r.Dirs[0].TotalIOs, r.Dirs[1].TotalIOs)
	}
	if got := strings.Count(warn.String(), "\n"); got != 22 {
		t.Errorf("verify_only: %d warning lines, want one per bad block:\n%s", got, warn.String())
	}

	v.VerifyStateLoad = true
	res, err = Run(context.Background(), []*jobfile.Job{v}, Options{AuxPath: aux})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Jobs[0]
	if r.Error != 0 || r.TotalErr != 0 || r.Dirs[0].TotalIOs != 10 {
		t.Errorf("verify_state_load: err=%d, %d bad of %d read; want the 10 written, all good", r.Error, r.TotalErr, r.Dirs[0].TotalIOs)
	}
	if !strings.Contains(strings.Join(r.EngineNotes, ";"), "verifying the 10 of 32 blocks whose writes completed, skipping 22") {
		t.Errorf("verify_state_load notes %q", r.EngineNotes)
	}

	// A state file of another job shape is refused, not misread.
	v.BS = [jobfile.NumDirs]uint64{8192, 8192, 8192}
	res, err = Run(context.Background(), []*jobfile.Job{v}, Options{AuxPath: aux})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.Error == 0 || !strings.Contains(r.ErrorText, "was saved by a job with 1 files of 4096-byte blocks") {
		t.Errorf("mismatched state: err=%d %q; want it refused", r.Error, r.ErrorText)
	}
}
