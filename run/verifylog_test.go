package run

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// iologOp is one read or write line of a write_iolog file.
type iologOp struct {
	read   bool
	off, n uint64
}

// readIOLogOps returns the reads and writes of the write_iolog file at
// path, in order.
func readIOLogOps(t *testing.T, path string) []iologOp {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ops []iologOp
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text()) // [time] file action offset length
		if len(fs) < 4 {
			continue
		}
		fs = fs[len(fs)-3:]
		if fs[0] != "read" && fs[0] != "write" {
			continue
		}
		off, err1 := strconv.ParseUint(fs[1], 10, 64)
		n, err2 := strconv.ParseUint(fs[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		ops = append(ops, iologOp{read: fs[0] == "read", off: off, n: n})
	}
	return ops
}

// TestVerifyLogSortedModel checks the verify log of a job without a
// random map against fio 3.33's rules (iolog.c's log_io_piece, verify.c's
// get_next_verify, io_u.c's check_get_verify), kept by a model that
// searches the whole log: every write takes each older block it overlaps
// out, whatever their sizes; a verify_backlog batch starts when the
// blocks in the log are a multiple of verify_backlog after anything but a
// read, and each read, the verify phase's too, is of the lowest block
// left. The job writes mixed sizes over both of its loops into one log,
// as fio's do_io does on a synchronous engine.
func TestVerifyLogSortedModel(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		opts    string
		backlog int
	}{
		{"bsrange=4k-16k\nverify_backlog=8\n", 8},
		{"bssplit=4k/50:16k/30:64k/20\nverify_backlog=5\nverify_backlog_batch=3\n", 5},
		{"bssplit=4k/50:16k/30:64k/20\nverify_backlog=6\nverify_backlog_batch=9\n", 6},
		{"bsrange=4k-32k\nloops=2\n", 0},
		{"bs=4k\nverify_backlog=1\n", 1},
		{"bs=4k\nverify_backlog=16\nverify_backlog_batch=40\n", 16},
	} {
		log := filepath.Join(dir, fmt.Sprintf("io%d.log", c.backlog))
		text := "[v]\nioengine=null\nrw=randwrite\nnorandommap\nsize=1m\nverify=null\nwrite_iolog=" + log + "\n" + c.opts
		jobs := parseJobs(t, dir, text)
		mustRun(t, jobs, Options{})
		ops := readIOLogOps(t, log)
		if err := checkSortedLog(ops, c.backlog, jobs[0].VerifyBacklogBatch); err != nil {
			t.Errorf("%q: %v", c.opts, err)
		}
	}
}

// checkSortedLog replays ops against the model of TestVerifyLogSortedModel.
func checkSortedLog(ops []iologOp, backlog, batchSize int) error {
	if batchSize == 0 {
		batchSize = backlog
	}
	writes := 0
	for _, op := range ops {
		if !op.read {
			writes++
		}
	}
	type blk struct{ off, n uint64 }
	var model []blk
	batch, lastRead, seen, reads := 0, false, 0, 0
	for i, op := range ops {
		want := seen == writes // the verify phase reads the rest
		if h := len(model); seen < writes && backlog > 0 && h > 0 {
			if batch == 0 && h%backlog == 0 && !lastRead {
				batch = batchSize
			}
			want = batch > 0
		}
		if op.read != want {
			return fmt.Errorf("op %d (%+v): read %v, want %v (%d blocks in the log, batch %d)", i, op, op.read, want, len(model), batch)
		}
		if !op.read {
			model = slices.DeleteFunc(model, func(b blk) bool { return b.off < op.off+op.n && op.off < b.off+b.n })
			model = append(model, blk{op.off, op.n})
			seen++
			lastRead = false
			continue
		}
		lo := slices.MinFunc(model, func(a, b blk) int { return int(a.off>>12) - int(b.off>>12) })
		if lo != (blk{op.off, op.n}) {
			return fmt.Errorf("op %d: read %d+%d, want the lowest block %d+%d", i, op.off, op.n, lo.off, lo.n)
		}
		model = slices.DeleteFunc(model, func(b blk) bool { return b == lo })
		reads++
		lastRead = true
		if seen < writes {
			batch--
		}
	}
	if len(model) > 0 || reads == 0 {
		return fmt.Errorf("%d reads, %d blocks never read back", reads, len(model))
	}
	return nil
}

// TestVerifyEachLoopAsync runs a norandommap writer with loops=2 on the
// null engine at iodepth=2, where it queues: fio's do_io ends each loop
// once it queued size= bytes, and the job verifies after each, where a
// synchronous engine's job writes both loops before one verify phase.
func TestVerifyEachLoopAsync(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		depth        string
		writesBefore int
	}{{"iodepth=2\n", 256}, {"iodepth=1\n", 512}} {
		log := filepath.Join(dir, "l"+c.depth[8:9]+".log")
		jobs := parseJobs(t, dir, "[a]\nioengine=null\nrw=randwrite\nnorandommap\nbs=4k\nsize=1m\nloops=2\nverify=null\nwrite_iolog="+log+"\n"+c.depth)
		mustRun(t, jobs, Options{})
		ops := readIOLogOps(t, log)
		first := slices.IndexFunc(ops, func(o iologOp) bool { return o.read })
		if first != c.writesBefore {
			t.Errorf("%s: %d writes before the first read, want %d", c.depth, first, c.writesBefore)
		}
	}
}

// TestVerifyIOSizePasses runs verifying writers whose io_size= is past
// their size=: as fio's keep_running, each pass over the file is verified
// and the verify reads count towards io_size=, so a pass moves twice its
// size (fio 3.33: 128 writes and 128 reads for io_size=1m over 512 KiB,
// 512 and 512 for 4m).
func TestVerifyIOSizePasses(t *testing.T) {
	dir := t.TempDir()
	const size, bs = 512 << 10, 4096
	for _, c := range []struct{ rw, ioSize string }{{"randwrite", "1m"}, {"write", "4m"}, {"randwrite", "4m"}} {
		jobs := parseJobs(t, dir, "[s]\nioengine=null\nrw="+c.rw+"\nbs=4k\nsize=512k\nio_size="+c.ioSize+"\nverify=null\n")
		r := mustRun(t, jobs, Options{})
		d := &r.Jobs[0].Dirs
		want := jobs[0].IOSize / (2 * size) * (size / bs)
		if w, rd := d[jobfile.DirWrite].TotalIOs, d[jobfile.DirRead].TotalIOs; w != want || rd != want {
			t.Errorf("rw=%s io_size=%s: %d writes, %d reads; want %d of each", c.rw, c.ioSize, w, rd, want)
		}
	}
}
