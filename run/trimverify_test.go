package run

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// chosenForTrim returns how many of n logged writes fio's trim generator
// picks for job j (io_u_should_trim's draws, one per logged write).
func chosenForTrim(j *jobfile.Job, n int) int {
	w := &verifylog.Log{Trim: verifylog.NewTrimList(j, 1, 1)}
	for i := 0; i < n; i++ {
		w.Issued(0, 0, uint64(i)*4096, 4096)
		w.Completed(0, 0, uint64(i)*4096, 4096)
	}
	return len(w.Trim.Idx)
}

// trimCounts returns the read, write and trim I/Os of the run's first job.
func trimCounts(r *report.Result) (reads, writes, trims uint64) {
	d := &r.Jobs[0].Dirs
	return d[jobfile.DirRead].TotalIOs, d[jobfile.DirWrite].TotalIOs, d[jobfile.DirTrim].TotalIOs
}

// TestTrimVerifyCounts runs trimwrite jobs with trim_percentage and
// trim_backlog on the null engine: every block is trimmed and written once
// by trimwrite, the blocks the trim generator picks are trimmed once more,
// and the verify phase reads back every block (trim_verify_zero=1) or
// only those not trimmed again (trim_verify_zero=0). With trim_backlog=64
// and a batch of 2 the writes end before the list is drained, and the rest
// is reported as leaked, as fio reports it. fio 3.33 gave 387 trims and
// 256 reads, 387 and 125, and 385 and 127 with 2 leaked for these jobs.
func TestTrimVerifyCounts(t *testing.T) {
	dir := t.TempDir()
	const blocks = 256
	base := "[tv]\nioengine=null\nrw=trimwrite\nbs=4k\nsize=1m\nverify=null\ntrim_percentage=50\n"
	for _, c := range []struct {
		extra  string
		leaked int
	}{
		{"trim_backlog=8\n", 0},
		{"trim_backlog=8\ntrim_verify_zero=0\n", 0},
		{"trim_backlog=3\ntrim_backlog_batch=1\ntrim_verify_zero=0\n", 0},
		{"trim_backlog=100\n", 0},
		{"trim_backlog=8\nrandom_generator=tausworthe64\n", 0},
		{"trim_backlog=64\ntrim_backlog_batch=2\ntrim_verify_zero=0\n", 2},
		// At depth 8 a write in flight counts in the log, as fio logs at
		// issue, and a trim due before its write completes waits.
		{"trim_backlog=8\niodepth=8\n", 0},
		{"trim_backlog=64\ntrim_backlog_batch=2\ntrim_verify_zero=0\niodepth=8\n", 2},
	} {
		jobs := parseJobs(t, dir, base+c.extra)
		var warn bytes.Buffer
		res := mustRun(t, jobs, Options{Warn: &warn})
		reads, writes, trims := trimCounts(res)
		chosen := chosenForTrim(jobs[0], blocks)
		wantReads := uint64(blocks)
		if !jobs[0].TrimVerifyZero {
			wantReads = blocks - uint64(chosen-c.leaked)
		}
		if writes != blocks || trims != uint64(blocks+chosen-c.leaked) || reads != wantReads {
			t.Errorf("%q: %d reads, %d writes, %d trims; want %d, %d, %d (%d blocks chosen, %d leaked)",
				c.extra, reads, writes, trims, wantReads, blocks, blocks+chosen-c.leaked, chosen, c.leaked)
		}
		leak := fmt.Sprintf("%d trim entries leaked?", c.leaked)
		if got := strings.Contains(warn.String(), leak); got != (c.leaked > 0) {
			t.Errorf("%q: warnings %q, want %q: %v", c.extra, warn.String(), leak, c.leaked > 0)
		}
	}
	if n := chosenForTrim(parseJobs(t, dir, base+"trim_backlog=8\n")[0], blocks); n != 131 {
		t.Errorf("fio 3.33 picks 131 of 256 blocks at trim_percentage=50 (randseed=0x89, thread 1): gofio %d", n)
	}
}

// TestTrimVerifyNoRandomMap checks trim verify with norandommap, where
// fio keeps its log sorted: a rewrite of a logged block takes the older
// entry out (of the log and off the trim list), and the job writes past
// size= while the list holds blocks. fio 3.33 gave 262 writes, 395 trims
// and 160 reads, and with trim_verify_zero=0 260, 392 and 74: the same
// I/Os as gofio, in the same order (row trimverify/null-norandommap).
// With verify_backlog the backlog reads the lowest block and the log's
// count leaves out the rewritten blocks (fio 3.33: 249 reads, 256 writes,
// 366 trims; row trimverify/null-norandommap-backlog), and with loops=2
// the null engine, synchronous at depth 1, writes both loops into one
// log (225, 512, 763; row trimverify/null-norandommap-loops).
func TestTrimVerifyNoRandomMap(t *testing.T) {
	dir := t.TempDir()
	base := "[nm]\nioengine=null\nrw=randtrimwrite\nbs=4k\nsize=1m\nnorandommap\nverify=null\ntrim_percentage=50\ntrim_backlog=8\n"
	for _, c := range []struct {
		extra              string
		reads, writes, trm uint64
	}{
		{"", 160, 262, 395},
		{"trim_verify_zero=0\n", 74, 260, 392},
		{"verify_backlog=16\n", 249, 256, 366},
		{"loops=2\n", 225, 512, 763},
	} {
		r, w, tr := trimCounts(mustRun(t, parseJobs(t, dir, base+c.extra), Options{}))
		if r != c.reads || w != c.writes || tr != c.trm {
			t.Errorf("%q: %d reads, %d writes, %d trims; fio 3.33: %d, %d, %d", c.extra, r, w, tr, c.reads, c.writes, c.trm)
		}
	}
}

// TestTrimVerifyWithBacklogAndLoops checks trim verify with
// verify_backlog (its reads take blocks off the trim list), with loops=2
// (the generator starts again each loop) and with number_ios: fio 3.33
// gave 363 trims and 256 reads, 373 and 139 with trim_verify_zero=0, 774
// and 512, and 119 trims and 81 writes and reads.
func TestTrimVerifyWithBacklogAndLoops(t *testing.T) {
	dir := t.TempDir()
	base := "[tv]\nioengine=null\nrw=trimwrite\nbs=4k\nsize=1m\nverify=null\ntrim_percentage=50\ntrim_backlog=8\n"
	one := mustRun(t, parseJobs(t, dir, base), Options{})
	_, _, trims1 := trimCounts(one)
	two := mustRun(t, parseJobs(t, dir, base+"loops=2\n"), Options{})
	if r, w, tr := trimCounts(two); r != 512 || w != 512 || tr != 2*trims1 {
		t.Errorf("loops=2: %d reads, %d writes, %d trims; want 512, 512 and twice one loop's %d", r, w, tr, trims1)
	}
	for _, c := range []struct {
		extra              string
		reads, writes, trm uint64
	}{
		{"verify_backlog=16\n", 256, 256, 363},
		{"verify_backlog=16\ntrim_verify_zero=0\n", 139, 256, 373},
		// number_ios (doubled for trimwrite) counts the list's trims;
		// fio's do_io runs on past it while the list holds blocks.
		{"number_ios=100\n", 81, 81, 119},
	} {
		r, w, tr := trimCounts(mustRun(t, parseJobs(t, dir, base+c.extra), Options{}))
		if r != c.reads || w != c.writes || tr != c.trm {
			t.Errorf("%q: %d reads, %d writes, %d trims; fio 3.33: %d, %d, %d", c.extra, r, w, tr, c.reads, c.writes, c.trm)
		}
	}
}

// TestTrimVerifyZeroes runs trim verify on a file with the falloc engine,
// whose trims punch holes and whose reads move no data: the first block
// read back was trimmed, holds the last write's data instead of zeroes,
// and fails with EILSEQ (fio 3.33: "trim: verify failed at file ... offset
// 0"). With trim_verify_zero=0 it is not read back, and the first block
// read fails its header instead, as in fio; with verify=null nothing is
// checked and the job passes.
func TestTrimVerifyZeroes(t *testing.T) {
	dir := t.TempDir()
	base := "ioengine=falloc\nrw=trimwrite\nbs=4k\nsize=1m\ntrim_percentage=50\ntrim_backlog=8\n"
	for i, c := range []struct {
		extra, want string
	}{
		{"verify=crc32c\n", "trimmed block mismatch"},
		{"verify=crc32c\ntrim_verify_zero=0\n", "header offset mismatch"},
		{"verify=null\n", ""},
	} {
		jobs := parseJobs(t, dir, fmt.Sprintf("[tz]\nfilename=%s\n%s%s", filepath.Join(dir, fmt.Sprint("tz", i)), base, c.extra))
		res, err := Run(context.Background(), jobs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		jr := res.Jobs[0]
		if c.want == "" {
			if jr.Error != 0 || jr.Dirs[jobfile.DirRead].TotalIOs != 256 {
				t.Errorf("%q: err %d (%s), %d reads; want none and 256", c.extra, jr.Error, jr.ErrorText, jr.Dirs[jobfile.DirRead].TotalIOs)
			}
			continue
		}
		if jr.Error != 84 || !strings.Contains(jr.ErrorText, c.want) {
			t.Errorf("%q: err %d (%s), want EILSEQ (84) and %q", c.extra, jr.Error, jr.ErrorText, c.want)
		}
	}
}

// TestTrimVerifyOnDevice runs trim verify on a loop device that discards
// (its backing file on tmpfs punches holes): trimmed blocks read back as
// zeroes and pass the check, as in fio 3.33 (387 trims and 256 reads with
// psync). It needs root and loop devices.
func TestTrimVerifyOnDevice(t *testing.T) {
	d := discardable(t, 4<<20)
	dir := t.TempDir()
	jobs := parseJobs(t, dir, "[td]\nioengine=psync\nrw=trimwrite\nbs=4k\nsize=1m\nverify=crc32c\ntrim_percentage=50\ntrim_backlog=8\nfilename="+d.Path+"\n")
	reads, writes, trims := trimCounts(mustRun(t, jobs, Options{}))
	if chosen := chosenForTrim(jobs[0], 256); reads != 256 || writes != 256 || trims != uint64(256+chosen) {
		t.Errorf("%d reads, %d writes, %d trims; want 256, 256, %d", reads, writes, trims, 256+chosen)
	}
}

// TestTrimVerifyOnlyReplay checks verify_only=1 after a trim verify job:
// the replay of the writes takes the same trims (fio's do_dry_run runs
// check_get_trim too), so the blocks they trimmed are checked as zeroes or
// not read at all, and a trimwrite job's replay counts its writes only
// against size= (it read 128 of the 256 blocks before). On a discarding
// loop device with crc32c every block passes, as in fio 3.33 (256 reads,
// 125 with trim_verify_zero=0); on a file with the falloc engine and
// verify=null the counts are checked. The device part needs root.
func TestTrimVerifyOnlyReplay(t *testing.T) {
	dir := t.TempDir()
	const blocks = 256
	for i, zero := range []string{"1", "0"} {
		job := fmt.Sprintf("[vo]\nioengine=falloc\nfilename=%s\nrw=trimwrite\nbs=4k\nsize=1m\nverify=null\ntrim_percentage=50\ntrim_backlog=8\ntrim_verify_zero=%s\n",
			filepath.Join(dir, fmt.Sprint("vo", i)), zero)
		jobs := parseJobs(t, dir, job)
		mustRun(t, jobs, Options{})
		chosen := chosenForTrim(jobs[0], blocks)
		reads, _, _ := trimCounts(mustRun(t, parseJobs(t, dir, job+"verify_only=1\n"), Options{}))
		want := uint64(blocks)
		if zero == "0" {
			want -= uint64(chosen)
		}
		if reads != want {
			t.Errorf("falloc, trim_verify_zero=%s: verify_only read %d blocks, want %d", zero, reads, want)
		}
	}
	d := discardable(t, 4<<20)
	for _, zero := range []string{"1", "0"} {
		job := "[vd]\nioengine=psync\nrw=trimwrite\nbs=4k\nsize=1m\nverify=crc32c\ntrim_percentage=50\ntrim_backlog=8\ntrim_verify_zero=" + zero + "\nfilename=" + d.Path + "\n"
		jobs := parseJobs(t, dir, job)
		mustRun(t, jobs, Options{})
		reads, _, _ := trimCounts(mustRun(t, parseJobs(t, dir, job+"verify_only=1\n"), Options{}))
		want := uint64(blocks)
		if zero == "0" {
			want -= uint64(chosenForTrim(jobs[0], blocks))
		}
		if reads != want {
			t.Errorf("loop device, trim_verify_zero=%s: verify_only read %d blocks, want %d", zero, reads, want)
		}
	}
}

// TestTrimVerifyRunaway checks the bound on issuing past size= for the
// trim list: with norandommap every write picked and one trim per 33
// logged blocks the list never empties, and fio 3.33 runs for ever (killed
// after 11 minutes); gofio stops at 16 times size=, says so, and reports
// the blocks left.
func TestTrimVerifyRunaway(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, "[ra]\nioengine=null\nrw=randtrimwrite\nbs=8k\nsize=768k\nnorandommap\nverify=null\ntrim_percentage=100\ntrim_backlog=33\ntrim_backlog_batch=1\ntrim_verify_zero=0\n")
	var warn bytes.Buffer
	_, writes, _ := trimCounts(mustRun(t, jobs, Options{Warn: &warn}))
	if want := uint64(trimRunawayFactor * 768 / 8); writes != want {
		t.Errorf("%d writes, want %d (%d times size=)", writes, want, trimRunawayFactor)
	}
	for _, want := range []string{"the trim list still held blocks after 16 times", "trim entries leaked?"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings %q lack %q", warn.String(), want)
		}
	}
}
