package run

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/jobfile"
)

// verifyJob is a write job with verify=kind of size bytes in blocks of bs.
func verifyJob(dir, name string, rw jobfile.RW, engine, kind string, bs, size uint64) *jobfile.Job {
	j := testJob(dir, name, rw, engine)
	j.Verify, j.DoVerify, j.RefillBuffers = kind, true, true
	if kind == "pattern" {
		j.VerifyPattern = []byte{0xde, 0xad, 0xbe, 0xef, 0x01}
	}
	j.BS = [jobfile.NumDirs]uint64{bs, bs, bs}
	j.Size = size
	return j
}

// TestVerifyCleanRuns: every verify type, sequential and random writes,
// 4 KiB and 64 KiB blocks, psync and io_uring: the verify phase reads
// every block back, accounted as reads, and finds no mismatch.
func TestVerifyCleanRuns(t *testing.T) {
	uringOK(t)
	dir := t.TempDir()
	const size = 512 << 10
	for _, kind := range []string{"crc32c", "md5", "sha256", "pattern", "meta"} {
		for _, rw := range []jobfile.RW{jobfile.RWWrite, jobfile.RWRandWrite} {
			for _, bs := range []uint64{4 << 10, 64 << 10} {
				for _, engine := range []string{"psync", "io_uring"} {
					name := fmt.Sprintf("%s-%s-%dk-%s", kind, rw, bs>>10, engine)
					j := verifyJob(dir, name, rw, engine, kind, bs, size)
					setDepth(j, 8)
					j.Direct = engine == "io_uring"
					j.Unlink = true
					var warn syncBuf
					r := mustRun(t, []*jobfile.Job{j}, Options{Warn: &warn}).Jobs[0]
					n := uint64(size) / bs
					rd, wr := &r.Dirs[jobfile.DirRead], &r.Dirs[jobfile.DirWrite]
					if wr.TotalIOs != n || wr.IOBytes != size || rd.TotalIOs != n || rd.IOBytes != size {
						t.Errorf("%s: wrote %d I/Os %d bytes, verified %d I/Os %d bytes; want %d and %d each", name, wr.TotalIOs, wr.IOBytes, rd.TotalIOs, rd.IOBytes, n, size)
					}
					if rd.Clat.N != n || rd.Runtime <= 0 || r.TotalErr != 0 {
						t.Errorf("%s: verify reads: %d clat samples, runtime %v, total_err %d", name, rd.Clat.N, rd.Runtime, r.TotalErr)
					}
					if strings.Contains(warn.String(), "verify") {
						t.Errorf("%s: warnings %q", name, warn.String())
					}
				}
			}
		}
	}
}

// TestVerifyMixedAndTimeBased: a randrw job verifies what it wrote; a
// time_based job that loops over its file many times verifies its last
// pass: no more blocks than the file holds, and no mismatch.
func TestVerifyMixedAndTimeBased(t *testing.T) {
	dir := t.TempDir()
	mixed := verifyJob(dir, "mixed", jobfile.RWRandRW, "psync", "crc32c", 4096, 256<<10)
	r := mustRun(t, []*jobfile.Job{mixed}, Options{}).Jobs[0]
	writes := r.Dirs[jobfile.DirWrite].TotalIOs
	// Reads of the mixed phase plus one verify read per written block
	// (the random map writes no block twice): 64 in all.
	if writes == 0 || r.Dirs[jobfile.DirRead].TotalIOs != 64 {
		t.Errorf("randrw: %d writes, %d reads; want %d reads", writes, r.Dirs[jobfile.DirRead].TotalIOs, 64)
	}
	// A job its runtime ends has no verify phase, as in fio (its
	// runtime_exceeded terminates the job before thread_main's verify):
	// a time_based job over many passes of its 16 blocks, and a
	// size-based one whose runtime ends it first.
	tb := verifyJob(dir, "timed", jobfile.RWRandWrite, "psync", "md5", 4096, 64<<10)
	tb.TimeBased, tb.Runtime = true, 200*time.Millisecond
	r = mustRun(t, []*jobfile.Job{tb}, Options{}).Jobs[0]
	if w, rd := r.Dirs[jobfile.DirWrite].TotalIOs, r.Dirs[jobfile.DirRead].TotalIOs; w <= 16 || rd != 0 {
		t.Errorf("time_based: %d writes, %d verify reads; want more than one pass of 16 writes and no verify reads", w, rd)
	}
	sb := verifyJob(dir, "cut", jobfile.RWWrite, "psync", "md5", 4096, 1<<30)
	sb.Runtime = 100 * time.Millisecond
	r = mustRun(t, []*jobfile.Job{sb}, Options{}).Jobs[0]
	if w, rd := r.Dirs[jobfile.DirWrite].TotalIOs, r.Dirs[jobfile.DirRead].TotalIOs; w == 0 || w == 1<<18 || rd != 0 {
		t.Errorf("runtime before size: %d writes, %d verify reads; want the runtime to end the writes and no verify reads", w, rd)
	}
}

// corruptAt flips one byte of path at off.
func corruptAt(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	b[0] ^= 0x5a
	_, err = f.WriteAt(b, off)
	return err
}

// TestVerifyCatchesCorruption corrupts one block between the write and
// verify phases (Options.beforeVerify) and checks the mismatch is caught
// with the file and offset, as the job's EILSEQ error, or counted with
// continue_on_error=verify.
func TestVerifyCatchesCorruption(t *testing.T) {
	uringOK(t)
	dir := t.TempDir()
	const bs = 4096
	tests := []struct {
		kind    string
		rw      jobfile.RW
		engine  string
		byteOff int64  // corrupted byte, relative to block 5
		what    string // what the mismatch names
		wantOff uint64 // offset the mismatch names
		coe     string
	}{
		// A data byte breaks the crc32c.
		{"crc32c", jobfile.RWWrite, "psync", 1000, "crc32c mismatch", 5 * bs, "none"},
		// ... the md5, with random writes on io_uring.
		{"md5", jobfile.RWRandWrite, "io_uring", 3000, "md5 mismatch", 5 * bs, "none"},
		// ... the sha256.
		{"sha256", jobfile.RWWrite, "io_uring", 4095, "sha256 mismatch", 5 * bs, "none"},
		// pattern names the exact bad byte.
		{"pattern", jobfile.RWRandWrite, "psync", 777, "pattern mismatch", 5*bs + 777, "none"},
		// meta checks the header only: a byte of the header's offset.
		{"meta", jobfile.RWWrite, "psync", 17, "header offset mismatch", 5 * bs, "none"},
		// continue_on_error=verify counts it and goes on.
		{"crc32c", jobfile.RWRandWrite, "psync", 100, "crc32c mismatch", 5 * bs, "verify"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s-%s-%s-%s", tt.kind, tt.rw, tt.engine, tt.coe)
		t.Run(name, func(t *testing.T) {
			j := verifyJob(dir, name, tt.rw, tt.engine, tt.kind, bs, 64<<10)
			j.ContinueOnError, _ = jobfile.ParseContinueOn(tt.coe)
			setDepth(j, 4)
			path := j.Filenames[0]
			var hooked int
			var warn syncBuf
			opts := Options{Warn: &warn, beforeVerify: func(job *jobfile.Job) error {
				hooked++
				return corruptAt(path, 5*bs+tt.byteOff)
			}}
			res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Jobs[0]
			if hooked != 1 {
				t.Fatalf("BeforeVerify ran %d times, want 1", hooked)
			}
			wantMsg := fmt.Sprintf("%s in file %s at offset %d", tt.what, path, tt.wantOff)
			if !strings.Contains(warn.String(), wantMsg) || !strings.Contains(warn.String(), "expected ") {
				t.Errorf("warnings %q; want %q with expected and got", warn.String(), wantMsg)
			}
			if tt.coe == "verify" {
				if r.Error != 0 || r.TotalErr != 1 || r.FirstErr != int(unix.EILSEQ) || r.Dirs[0].TotalIOs != 16 {
					t.Errorf("err=%d total_err=%d first_error=%d reads=%d; want 0, 1, EILSEQ, 16", r.Error, r.TotalErr, r.FirstErr, r.Dirs[0].TotalIOs)
				}
				return
			}
			if r.Error != int(unix.EILSEQ) || !strings.Contains(r.ErrorText, wantMsg) {
				t.Errorf("err=%d %q; want EILSEQ naming %q", r.Error, r.ErrorText, wantMsg)
			}
		})
	}
}

// TestVerifyReadBackJob is fio's other way: a write job with do_verify=0
// lays down verify blocks, then a separate rw=read job with verify= checks
// them: clean at first, and after one byte is corrupted the read job
// reports that block.
func TestVerifyReadBackJob(t *testing.T) {
	uringOK(t)
	dir := t.TempDir()
	const bs = 8192
	for _, engine := range []string{"psync", "io_uring"} {
		for _, kind := range []string{"crc32c", "sha256"} {
			w := verifyJob(dir, "rb-"+engine+kind, jobfile.RWRandWrite, engine, kind, bs, 256<<10)
			w.DoVerify = false
			setDepth(w, 8)
			r := mustRun(t, []*jobfile.Job{w}, Options{}).Jobs[0]
			if r.Dirs[jobfile.DirRead].TotalIOs != 0 {
				t.Fatalf("do_verify=0 read %d blocks back", r.Dirs[jobfile.DirRead].TotalIOs)
			}
			read := func() (*jobfile.Job, string) {
				rj := verifyJob(dir, "rb-"+engine+kind, jobfile.RWRandRead, engine, kind, bs, 256<<10)
				setDepth(rj, 8)
				return rj, rj.Filenames[0]
			}
			rj, path := read()
			r = mustRun(t, []*jobfile.Job{rj}, Options{}).Jobs[0]
			if r.Dirs[jobfile.DirRead].TotalIOs != 32 || r.Dirs[jobfile.DirWrite].TotalIOs != 0 {
				t.Fatalf("%s %s clean read-back: %d reads, %d writes", engine, kind, r.Dirs[0].TotalIOs, r.Dirs[1].TotalIOs)
			}
			if err := corruptAt(path, 17*bs+5000); err != nil {
				t.Fatal(err)
			}
			rj, _ = read()
			res, err := Run(context.Background(), []*jobfile.Job{rj}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%s mismatch in file %s at offset %d", kind, path, 17*bs)
			if r := res.Jobs[0]; r.Error != int(unix.EILSEQ) || !strings.Contains(r.ErrorText, want) {
				t.Errorf("%s %s: err=%d %q; want EILSEQ naming %q", engine, kind, r.Error, r.ErrorText, want)
			}
		}
	}
}

// TestVerifyRefusals: what cannot be verified is refused before anything
// runs.
func TestVerifyRefusals(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		set  func(j *jobfile.Job)
		want string
	}{
		// A type fio has and gofio does not.
		{"xxhash", func(j *jobfile.Job) { j.Verify = "xxhash" }, "does not implement"},
		// The null engine moves no data.
		{"null", func(j *jobfile.Job) { j.IOEngine = "null" }, "needs an engine that moves data"},
		// A block smaller than the crc32c header.
		{"tiny-bs", func(j *jobfile.Job) { j.BS = [jobfile.NumDirs]uint64{32, 32, 32} }, "at least 44 bytes"},
		// verify=pattern without verify_pattern.
		{"no-pattern", func(j *jobfile.Job) { j.Verify = "pattern" }, "needs verify_pattern"},
	}
	for _, tt := range tests {
		j := verifyJob(dir, tt.name, jobfile.RWWrite, "psync", "crc32c", 4096, 64<<10)
		tt.set(j)
		if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
		if _, err := os.Stat(j.Filenames[0]); err == nil {
			t.Errorf("%s: the file was created", tt.name)
		}
	}
}

// halfEngine wraps psync: every fresh read or write moves only its first
// half, so the run core must requeue the remainder at the right offset
// from the right part of the buffer.
type halfEngine struct {
	engines.Engine
}

func (h *halfEngine) SyncIO() bool { return true }

func (h *halfEngine) Queue(slot uint32, r *engines.Request) error {
	if r.BufOff == 0 && (r.Op == engines.OpRead || r.Op == engines.OpWrite) && len(r.Buf) > 1 {
		q := *r
		q.Buf = q.Buf[:len(q.Buf)/2]
		return h.Engine.Queue(slot, &q)
	}
	return h.Engine.Queue(slot, r)
}

// TestShortIOWithVerify: with every read and write cut short, the data
// still lands in the right place: the verify phase finds every block
// intact, and each I/O is counted once.
func TestShortIOWithVerify(t *testing.T) {
	engs := map[string]engines.Opener{"half": func(s engines.Setup) (engines.Engine, error) {
		e, err := psync.Open(s)
		return &halfEngine{Engine: e}, err
	}}
	for _, rw := range []jobfile.RW{jobfile.RWWrite, jobfile.RWRandWrite} {
		j := verifyJob(t.TempDir(), "half", rw, "half", "crc32c", 16<<10, 256<<10)
		r := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs}).Jobs[0]
		rd, wr := r.Dirs[jobfile.DirRead], r.Dirs[jobfile.DirWrite]
		if wr.TotalIOs != 16 || wr.ShortIOs != 16 || wr.IOBytes != 256<<10 || rd.TotalIOs != 16 || rd.ShortIOs != 16 || rd.IOBytes != 256<<10 {
			t.Errorf("%s: writes %d (short %d, %d bytes), reads %d (short %d, %d bytes); want 16 of each, all short, 256 KiB",
				rw, wr.TotalIOs, wr.ShortIOs, wr.IOBytes, rd.TotalIOs, rd.ShortIOs, rd.IOBytes)
		}
	}
}
