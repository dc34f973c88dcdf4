package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
)

// ioSeq is the direction, offset and length of each I/O an offset
// generator chooses.
type ioSeq struct {
	d      jobfile.Dir
	off, n uint64
}

// fills returns every I/O the generator of job j chooses in one loop, or
// the first 1<<16 of an endless one (norandommap).
func fills(t *testing.T, j *jobfile.Job) []ioSeq {
	t.Helper()
	g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, iogen.JobSeed(j, 0, 0), 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []ioSeq
	for {
		d, _, off, n, ok := g.Fill()
		if !ok {
			return out
		}
		out = append(out, ioSeq{d, off, n})
		if len(out) == 1<<16 {
			return out
		}
	}
}

// TestTrimWritePairs: trimwrite and randtrimwrite trim a block, then
// write the same block (fio's set_rw_ddir and get_next_block), so the
// I/Os come in pairs; sequential ones cover the region in order, random
// ones each block once (the random map covers the trims only).
func TestTrimWritePairs(t *testing.T) {
	for _, rw := range []jobfile.RW{jobfile.RWTrimWrite, jobfile.RWRandTrimWrite} {
		j := testJob("", "tw", rw, "null")
		j.Size = 256 << 10
		j.BS = [jobfile.NumDirs]uint64{4096, 4096, 4096}
		seq := fills(t, j)
		if len(seq) != 2*int(j.Size/4096) {
			t.Fatalf("%s: %d I/Os, want a trim and a write per block (%d)", rw, len(seq), 2*j.Size/4096)
		}
		seen := map[uint64]bool{}
		for i := 0; i < len(seq); i += 2 {
			tr, w := seq[i], seq[i+1]
			if tr.d != jobfile.DirTrim || w.d != jobfile.DirWrite || tr.off != w.off || tr.n != w.n {
				t.Fatalf("%s: I/Os %d and %d are %+v, %+v; want a trim then a write of the same block", rw, i, i+1, tr, w)
			}
			if rw == jobfile.RWTrimWrite && tr.off != uint64(i/2)*4096 {
				t.Fatalf("%s: pair %d at %d, want %d", rw, i/2, tr.off, i/2*4096)
			}
			if seen[tr.off] {
				t.Fatalf("%s: block %d trimmed twice in one loop", rw, tr.off)
			}
			seen[tr.off] = true
		}
	}
}

// TestTrimWriteBSRange: with bsrange, a trimwrite job's trims draw their
// lengths from the write seed (fio's td_fill_rand_seeds_internal), so
// every write is as long as the trim before it, sequential or random.
func TestTrimWriteBSRange(t *testing.T) {
	for _, rw := range []jobfile.RW{jobfile.RWTrimWrite, jobfile.RWRandTrimWrite} {
		j := testJob("", "twr", rw, "null")
		j.Size = 1 << 20
		for d := range j.BSRangeMin {
			j.BSRangeMin[d], j.BSRangeMax[d] = 512, 4096
		}
		j.NoRandomMap = true
		seq := fills(t, j)
		sizes := map[uint64]bool{}
		for i := 0; i+1 < len(seq); i += 2 {
			tr, w := seq[i], seq[i+1]
			if tr.d != jobfile.DirTrim || w.d != jobfile.DirWrite || tr.off != w.off || tr.n != w.n {
				t.Fatalf("%s: pair %d is %+v, %+v; want a trim then a write of the same block and length", rw, i/2, tr, w)
			}
			sizes[tr.n] = true
		}
		if len(sizes) < 2 {
			t.Fatalf("%s: bsrange=512-4k drew one length only", rw)
		}
	}
}

// TestTrimUsesThirdBlockSize: trims take bs='s third value, and the
// writes of randtrimwrite take the length of the trim before them.
func TestTrimUsesThirdBlockSize(t *testing.T) {
	j := testJob("", "bs", jobfile.RWRandTrim, "null")
	j.Size = 256 << 10
	j.BS = [jobfile.NumDirs]uint64{4096, 4096, 16384}
	for _, io := range fills(t, j) {
		if io.d != jobfile.DirTrim || io.n == 0 || io.n > 16384 || io.off%4096 != 0 {
			t.Fatalf("randtrim I/O %+v; want trims of at most 16k on 4k boundaries", io)
		}
	}
	j.RW = jobfile.RWRandTrimWrite
	seq := fills(t, j)
	for i := 0; i+1 < len(seq); i += 2 {
		if seq[i+1].n != seq[i].n || seq[i+1].off != seq[i].off {
			t.Fatalf("randtrimwrite: write %+v after trim %+v; want the trim's block and length", seq[i+1], seq[i])
		}
	}
}

// discardable returns a loop device of size bytes, filled with 0xa5, that
// supports discard, or skips the test.
func discardable(t *testing.T, size int64) *loopdev.Device {
	t.Helper()
	d := loopdev.New(t, size)
	b, err := os.ReadFile("/sys/block/loop" + strconv.Itoa(d.Number) + "/queue/discard_max_bytes")
	if err != nil || strings.TrimSpace(string(b)) == "0" {
		t.Skipf("%s does not discard (discard_max_bytes %q, %v)", d.Path, bytes.TrimSpace(b), err)
	}
	f, err := os.OpenFile(d.Path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{0xa5}, int(size))); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return d
}

// allocated returns the bytes the file at path has allocated.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestTrimDiscardsLoopDevice runs rw=trim on half of a loop device with
// each engine that trims as fio does (BLKDISCARD): the trimmed half reads
// back as zeros and its backing file gives the space back, the other half
// keeps its data, and the report counts every trim with its latency.
func TestTrimDiscardsLoopDevice(t *testing.T) {
	const size, half = 8 << 20, 4 << 20
	for _, engine := range []string{"psync", "sync", "pvsync2", "mmap", "io_uring", "libaio"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "io_uring" {
				uringOK(t)
			}
			d := discardable(t, size)
			before := allocated(t, d.Backing)
			j := testJob("", "trim-"+engine, jobfile.RWTrim, engine)
			j.Filenames = []string{d.Path}
			j.Size = half
			if engine == "io_uring" || engine == "libaio" {
				j.IODepth = 8
			}
			r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
			tr := r.Dirs[jobfile.DirTrim]
			if tr.TotalIOs != half/4096 || tr.IOBytes != half || tr.Clat.N != half/4096 || tr.Lat.N != half/4096 {
				t.Fatalf("trim: total_ios %d, io_bytes %d, clat N %d, lat N %d; want %d trims of 4k each timed",
					tr.TotalIOs, tr.IOBytes, tr.Clat.N, tr.Lat.N, half/4096)
			}
			if r.Dirs[jobfile.DirRead].TotalIOs+r.Dirs[jobfile.DirWrite].TotalIOs != 0 {
				t.Fatalf("rw=trim read or wrote: %+v", r.Dirs)
			}
			got, err := os.ReadFile(d.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:half], make([]byte, half)) {
				t.Error("the trimmed half does not read back as zeros")
			}
			if !bytes.Equal(got[half:], bytes.Repeat([]byte{0xa5}, size-half)) {
				t.Error("the half past size= changed")
			}
			if after := allocated(t, d.Backing); before-after < half {
				t.Errorf("backing file: %d bytes allocated before, %d after; want at least %d given back", before, after, half)
			}
		})
	}
}

// TestTrimWriteLoopDevice: randtrimwrite on a loop device trims and writes
// each block once, so trims and writes count alike and the device holds
// the written data, not zeros.
func TestTrimWriteLoopDevice(t *testing.T) {
	const size = 2 << 20
	d := discardable(t, size)
	j := testJob("", "tw", jobfile.RWRandTrimWrite, "psync")
	j.Filenames = []string{d.Path}
	j.Size = size
	r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
	tr, w := r.Dirs[jobfile.DirTrim], r.Dirs[jobfile.DirWrite]
	if tr.TotalIOs != size/4096 || w.TotalIOs != size/4096 || tr.IOBytes != size || w.IOBytes != size {
		t.Fatalf("trims %d (%d bytes), writes %d (%d bytes); want %d of each", tr.TotalIOs, tr.IOBytes, w.TotalIOs, w.IOBytes, size/4096)
	}
	got, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < size; off += 4096 {
		if bytes.Equal(got[off:off+4096], make([]byte, 4096)) || bytes.Equal(got[off:off+4096], bytes.Repeat([]byte{0xa5}, 4096)) {
			t.Fatalf("block at %d holds zeros or the old data; want the job's write after the trim", off)
		}
	}
}

// TestTrimRegularFileFails: fio trims with BLKDISCARD, which a regular
// file refuses with ENOTTY; the job ends with fio's error (err=25,
// func=td_io_queue) after one trim, and the file is unchanged.
func TestTrimRegularFileFails(t *testing.T) {
	dir := t.TempDir()
	for _, engine := range []string{"psync", "io_uring"} {
		if engine == "io_uring" {
			uringOK(t)
		}
		j := testJob(dir, "trim-"+engine, jobfile.RWTrim, engine)
		stampedFile(t, j.Filenames[0], int(j.Size))
		before := hashFile(t, j.Filenames[0])
		res, err := runOnce(j)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		want := "func=td_io_queue, error=Inappropriate ioctl for device"
		if r.Error != int(unix.ENOTTY) || r.ErrorText != want || r.Dirs[jobfile.DirTrim].TotalIOs != 1 {
			t.Errorf("%s: err=%d %q, %d trims issued; want err=25 %q after 1", engine, r.Error, r.ErrorText, r.Dirs[jobfile.DirTrim].TotalIOs, want)
		}
		if hashFile(t, j.Filenames[0]) != before {
			t.Errorf("%s: the file changed", engine)
		}
	}
}

// TestFallocTrimPunchesHoles: the falloc engine trims a regular file with
// FALLOC_FL_PUNCH_HOLE, as fio's does: the file keeps its size and reads
// zeros where it was trimmed.
func TestFallocTrimPunchesHoles(t *testing.T) {
	dir := t.TempDir()
	j := testJob(dir, "punch", jobfile.RWTrim, "falloc")
	path := filepath.Join(dir, "punch.dat")
	if err := os.WriteFile(path, bytes.Repeat([]byte{0xa5}, 2*int(j.Size)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
	if got := r.Dirs[jobfile.DirTrim].IOBytes; got != j.Size {
		t.Fatalf("trimmed %d bytes, want %d", got, j.Size)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*int(j.Size) || !bytes.Equal(got[:j.Size], make([]byte, j.Size)) || got[j.Size] != 0xa5 {
		t.Fatal("falloc trim did not punch the first size= bytes only")
	}
}

// TestBlockErrorPercentiles: with block_error_percentiles every trim
// counts in the block it starts in, so over a loop device the blocks'
// counts add up to the trims and every block is unwritten or trimmed; a
// file of more than fio's 8192 trim blocks ends the job with fio's
// EINVAL (func=block_error_hist) before any I/O.
func TestBlockErrorPercentiles(t *testing.T) {
	d := discardable(t, 4<<20)
	j := testJob("", "blocks", jobfile.RWRandTrim, "psync")
	j.Filenames = []string{d.Path}
	j.Size = 256 << 10
	j.Loops = 3
	j.NoRandomMap = true
	j.BlockErrorPercentiles = true
	r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
	if len(r.Blocks) != 64 {
		t.Fatalf("%d blocks, want 64 (256k of 4k trims)", len(r.Blocks))
	}
	var sum, trimmed uint64
	for _, b := range r.Blocks {
		n := uint64(b & (1<<29 - 1))
		sum += n
		switch b >> 29 {
		case 0:
			if n != 0 {
				t.Fatalf("an unwritten block counts %d trims", n)
			}
		case 1:
			trimmed++
		default:
			t.Fatalf("block state %d, want unwritten or trimmed", b>>29)
		}
	}
	if got := r.Dirs[jobfile.DirTrim].TotalIOs; sum != got || trimmed == 0 {
		t.Fatalf("the blocks count %d trims over %d blocks; the job issued %d", sum, trimmed, got)
	}

	j2 := testJob("", "blocks-big", jobfile.RWTrim, "psync")
	j2.Filenames = []string{d.Path}
	j2.Size = 4 << 20
	j2.BS[jobfile.DirTrim] = 256
	j2.BlockErrorPercentiles = true
	res, err := runOnce(j2)
	if err != nil {
		t.Fatal(err)
	}
	r2 := res.Jobs[0]
	if r2.Error != int(unix.EINVAL) || !strings.Contains(r2.ErrorText, "func=block_error_hist") || r2.Dirs[jobfile.DirTrim].TotalIOs != 0 {
		t.Fatalf("16384 blocks: err=%d %q, %d trims; want EINVAL from block_error_hist before any trim", r2.Error, r2.ErrorText, r2.Dirs[jobfile.DirTrim].TotalIOs)
	}
}
