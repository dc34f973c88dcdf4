package run

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
)

// verify_only, verify_state_save and verify_state_load:
//
//   - verify_only=1 on a writing job with verify= issues no write; with
//     do_verify=1 (fio's default; 0 makes the job do nothing, as in fio) it
//     replays the job's offset generator (the same seed, so the same
//     blocks in the same order, as fio's verify_only does) for the bytes
//     the write phase would have issued, and reads every block that
//     phase would have written back through the verify phase. A block
//     that was never written, or was torn, fails its check and is named;
//     with continue_on_error=verify every such block is counted.
//   - verify_state_save=1 keeps a state file, <aux-path>/local-NAME-N-
//     verify.state as fio names it, with one byte per smallest write
//     block of every file, set when a write of that block completed. The
//     file is a shared mapping written on every completion, so it holds
//     exactly the completed writes even when the process is killed with
//     SIGKILL (fio saves its state only when the job ends or on a signal
//     it catches). The format is gofio's own.
//   - verify_state_load=1 with verify_only=1 checks exactly the blocks the
//     state file marks as completed and skips the others, saying how many.

// vstateMagic starts a gofio verify state file.
var vstateMagic = [16]byte{'g', 'o', 'f', 'i', 'o', '-', 'v', 's', 't', 'a', 't', 'e', '-', 'v', '1', '\n'}

// vstateHeader is the file's fixed header, little-endian, followed by
// Files uint64 block counts and then one byte per block, file after file.
type vstateHeader struct {
	Magic [16]byte
	Block uint64 // bytes per state byte: the job's smallest write block
	Files uint64
}

// verifyState is a job's mapped state file.
type verifyState struct {
	path  string
	block uint64
	maps  [][]byte // per file: one byte per block
	mem   []byte   // the whole mapping
}

// verifyStatePath is fio's name for job index's state file:
// local-NAME-INDEX-verify.state, '/' in the name turned into '.', under
// aux (the working directory when empty).
func verifyStatePath(aux, name string, index int) string {
	return filepath.Join(aux, fmt.Sprintf("local-%s-%d-verify.state", strings.ReplaceAll(name, "/", "."), index))
}

func vstateLayout(regions []iogen.Region, block uint64) (counts []uint64, hdr int, total int) {
	hdr = binary.Size(vstateHeader{})
	counts = make([]uint64, len(regions))
	total = hdr + 8*len(regions)
	for i, r := range regions {
		counts[i] = (r.End + block - 1) / block
		total += int(counts[i])
	}
	return counts, hdr, total
}

// createVerifyState creates (truncating) and maps a job's state file with
// nothing marked.
func createVerifyState(path string, regions []iogen.Region, block uint64) (*verifyState, error) {
	counts, hdr, total := vstateLayout(regions, block)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("verify_state_save: %w", err)
	}
	defer f.Close()
	var head bytes.Buffer
	binary.Write(&head, binary.LittleEndian, vstateHeader{Magic: vstateMagic, Block: block, Files: uint64(len(regions))})
	binary.Write(&head, binary.LittleEndian, counts)
	if _, err := f.Write(head.Bytes()); err != nil {
		return nil, fmt.Errorf("verify_state_save: %s: %w", path, err)
	}
	if err := f.Truncate(int64(total)); err != nil {
		return nil, fmt.Errorf("verify_state_save: %s: %w", path, err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("verify_state_save: map %s: %w", path, err)
	}
	vs := &verifyState{path: path, block: block, mem: mem}
	off := hdr + 8*len(regions)
	for _, c := range counts {
		vs.maps = append(vs.maps, mem[off:off+int(c)])
		off += int(c)
	}
	return vs, nil
}

// loadVerifyState reads a state file and checks that it belongs to a job
// of this shape.
func loadVerifyState(path string, regions []iogen.Region, block uint64) (*verifyState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("verify_state_load: %w", err)
	}
	counts, hdr, total := vstateLayout(regions, block)
	var h vstateHeader
	if len(b) < hdr || binary.Read(bytes.NewReader(b[:hdr]), binary.LittleEndian, &h) != nil || h.Magic != vstateMagic {
		return nil, fmt.Errorf("verify_state_load: %s is not a gofio verify state file", path)
	}
	if h.Block != block || h.Files != uint64(len(regions)) || len(b) != total {
		return nil, fmt.Errorf("verify_state_load: %s was saved by a job with %d files of %d-byte blocks, not this one (%d files, %d-byte blocks)",
			path, h.Files, h.Block, len(regions), block)
	}
	vs := &verifyState{path: path, block: block}
	off := hdr + 8*len(regions)
	for i, c := range counts {
		if binary.LittleEndian.Uint64(b[hdr+8*i:]) != c {
			return nil, fmt.Errorf("verify_state_load: %s: file %d has another size", path, i)
		}
		vs.maps = append(vs.maps, b[off:off+int(c)])
		off += int(c)
	}
	return vs, nil
}

// mark records a completed write of n bytes at off in file.
func (vs *verifyState) mark(file int32, off uint64, n uint32) {
	m := vs.maps[file]
	for b := off / vs.block; b*vs.block < off+uint64(n) && b < uint64(len(m)); b++ {
		m[b] = 1
	}
}

// done reports whether every block of [off, off+n) in file was marked.
func (vs *verifyState) done(file int32, off uint64, n uint32) bool {
	m := vs.maps[file]
	for b := off / vs.block; b*vs.block < off+uint64(n); b++ {
		if b >= uint64(len(m)) || m[b] == 0 {
			return false
		}
	}
	return true
}

// close unmaps a saved state; the kernel writes it back.
func (vs *verifyState) close() error {
	if vs == nil || vs.mem == nil {
		return nil
	}
	err := unix.Munmap(vs.mem)
	vs.mem = nil
	return err
}

// replayWrites is verify_only's write phase: it draws the offsets the
// write phase would have issued, one pass for a time_based job, and logs
// the writes among them without issuing anything.
func (l *loop) replayWrites() {
	t := l.verify.wlog.trim
	for {
		if t != nil && l.trimDue() == trimNow {
			// fio's dry run takes trim verify's trims too: the
			// blocks they trimmed read back as zeroes, or not at all.
			l.verify.wlog.takeTrim()
			continue
		}
		if !l.job.TimeBased && !l.budgetLeft() && (t == nil || t.listed == 0) {
			return
		}
		var d jobfile.Dir
		var file int
		var off, n uint64
		var ok bool
		if l.job.TimeBased {
			d, file, off, n, ok = l.gen.Fill()
		} else {
			d, file, off, n, ok = l.fillIO()
		}
		if !ok {
			return
		}
		if l.zones != nil {
			// Nothing is issued: the write completes here for its zone.
			l.zones.End(file, d, off, n, l.zones.Holds(file, d))
		}
		if d != jobfile.DirTrim || !l.hasWrite {
			l.issued += n // a trimwrite job's size= counts its writes (countIssued)
		}
		if d == jobfile.DirWrite {
			l.verify.wlog.issued(0, int32(file), off, uint32(n))
			l.verify.wlog.completed(0, int32(file), off, uint32(n))
		}
	}
}

// keepSaved drops from the write log the blocks the loaded state does not
// mark as completed, and returns how many it dropped.
func (l *loop) keepSaved(vs *verifyState) int {
	kept := l.verify.wlog.ents[:0]
	dropped := 0
	for _, e := range l.verify.wlog.ents {
		if vs.done(e.file, e.off, e.n) {
			kept = append(kept, e)
		} else {
			dropped++
		}
	}
	l.verify.wlog.ents = kept
	return dropped
}

// runVerifyOnly is a verify_only job: replay, optionally narrowed to the
// loaded state, then the verify phase.
func (l *loop) runVerifyOnly(vs *verifyState) string {
	now := l.clock()
	l.started, l.statsStart = now, now
	getrusageThread(&l.rusageStart)
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	l.replayWrites()
	l.issued = 0
	l.verify.wlog.finish()
	note := ""
	if vs != nil {
		total := len(l.verify.wlog.ents)
		skipped := l.keepSaved(vs)
		note = fmt.Sprintf("verify_state_load: %s: verifying the %d of %d blocks whose writes completed, skipping %d", vs.path, total-skipped, total, skipped)
	}
	l.runVerify()
	return note
}

// regions returns the job's target regions.
func (jr *jobRun) regions() []iogen.Region {
	rs := make([]iogen.Region, len(jr.targets))
	for i, t := range jr.targets {
		rs[i] = t.Region
	}
	return rs
}

// saveVerifyState opens the state file of a verifying write job with
// verify_state_save=1; a file that cannot be created ends the job.
func (jr *jobRun) saveVerifyState(e *env, l *loop) {
	j := jr.job
	if !j.VerifyStateSave || l.verify.ver == nil || !l.hasWrite {
		return
	}
	vs, err := createVerifyState(verifyStatePath(e.opts.AuxPath, j.Name, jr.index), jr.regions(), l.gen.MinBS[jobfile.DirWrite])
	if err != nil {
		e.warnf("gofio: job %s: %v\n", j.Name, err)
		l.fail(joberr.ErrnoOf(err, unix.EIO), "verify_state_save", err)
		return
	}
	l.verify.vstate = vs
}

// verifyOnly runs a verify_only job, with verify_state_load's state when
// asked for.
func (jr *jobRun) verifyOnly(e *env, l *loop) {
	j := jr.job
	if l.verify.wlog == nil {
		// fio's verify_only with do_verify=0 neither writes nor verifies.
		now := l.clock()
		l.started, l.statsStart, l.ended = now, now, now
		return
	}
	var vs *verifyState
	if j.VerifyStateLoad {
		var err error
		vs, err = loadVerifyState(verifyStatePath(e.opts.AuxPath, j.Name, jr.index), jr.regions(), l.gen.MinBS[jobfile.DirWrite])
		if err != nil {
			now := l.clock()
			l.started, l.statsStart, l.ended = now, now, now
			l.fail(joberr.ErrnoOf(err, unix.ENOENT), "verify_state_load", err)
			return
		}
	}
	if note := l.runVerifyOnly(vs); note != "" {
		jr.res.EngineNotes = append(jr.res.EngineNotes, note)
		e.warnf("%s: %s\n", j.Name, note)
	}
}
