package iolog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The blktrace format (the kernel's blktrace_api.h): fixed records of
// traceLen bytes, each followed by pdu_len bytes of payload.
const (
	traceLen        = 48
	traceVersion    = 0x07
	tcShift         = 16
	tcWrite         = 1 << 1
	tcFlush         = 1 << 2
	tcNotify        = 1 << 10
	tcDiscard       = 1 << 13
	tcRead          = 1 << 0
	taQueue         = 1
	taBackmerge     = 2
	taFrontmerge    = 3
	taComplete      = 8
	maxProbedDepth  = 1024
	minorBits       = 20
	minorMask       = 1<<minorBits - 1
	blktraceDevRoot = "/dev"
)

// Skip is replay_skip's set of directions a blktrace replay leaves out.
type Skip uint8

// The directions replay_skip names.
const (
	SkipRead Skip = 1 << iota
	SkipWrite
	SkipTrim
	SkipSync
)

// trace is one blk_io_trace record.
type trace struct {
	magic, sequence uint32
	time, sector    uint64
	bytes, action   uint32
	pid, device     uint32
	cpu             uint32
	errno, pduLen   uint16
}

func decodeTrace(b []byte, o binary.ByteOrder) trace {
	return trace{
		magic: o.Uint32(b[0:]), sequence: o.Uint32(b[4:]),
		time: o.Uint64(b[8:]), sector: o.Uint64(b[16:]),
		bytes: o.Uint32(b[24:]), action: o.Uint32(b[28:]),
		pid: o.Uint32(b[32:]), device: o.Uint32(b[36:]), cpu: o.Uint32(b[40:]),
		errno: o.Uint16(b[44:]), pduLen: o.Uint16(b[46:]),
	}
}

// EncodeTrace is the record of one queued I/O in little-endian blktrace
// format, for tests and tools that make traces: dir is Read, Write, Trim
// or Sync (a flush), t the time in nanoseconds, dev the device as
// MAJOR<<20|MINOR.
func EncodeTrace(dir Kind, t, sector uint64, bytes, dev uint32) []byte {
	act := uint32(taQueue)
	switch dir {
	case Read:
		act |= tcRead << tcShift
	case Write:
		act |= tcWrite << tcShift
	case Trim:
		act |= (tcDiscard | tcWrite) << tcShift
	case Sync:
		act |= (tcFlush | tcWrite) << tcShift
	}
	b := make([]byte, traceLen)
	o := binary.LittleEndian
	o.PutUint32(b[0:], blktraceMagic|traceVersion)
	o.PutUint64(b[8:], t)
	o.PutUint64(b[16:], sector)
	o.PutUint32(b[24:], bytes)
	o.PutUint32(b[28:], act)
	o.PutUint32(b[36:], dev)
	return b
}

// ParseBlktrace reads a blktrace binary trace as fio's read_blktrace
// does: only queue events count; each new device becomes a file (the
// block device with its major and minor under /dev, or replay_redirect),
// opened before its first I/O and closed at the end; reads, writes,
// discards and flushes are replayed with the gaps between their times,
// except the directions in o.Skip. Depth is the deepest queue the trace
// shows (at most 1024), which fio runs at unless iodepth= is set.
func ParseBlktrace(r io.Reader, name string, o Options) (*Log, error) {
	p := parser{name: name, o: o, log: &Log{Blktrace: true}, index: map[string]int{}}
	if p.o.TimeScale == 0 {
		p.o.TimeScale = 100
	}
	tr := traceReader{r: r, name: name, buf: make([]byte, traceLen), order: binary.LittleEndian}
	files := map[uint32]int{}
	var probe depthProbe
	for {
		t, ok, err := tr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		cat := t.action >> tcShift
		act := t.action & 0xffff
		if cat&tcNotify == 0 {
			probe.see(cat, act)
			if cat&(tcWrite|tcDiscard) != 0 && o.ReadOnly {
				p.log.SkippedWrites++
				continue
			}
		}
		if act != taQueue || cat&tcNotify != 0 {
			continue
		}
		delay := p.delay(t.time) / 1000
		if o.Align > 0 {
			t.bytes = uint32((uint64(t.bytes) + o.Align - 1) &^ (o.Align - 1))
		}
		k, ok := traceKind(cat, o.Skip)
		if !ok || (k != Sync && t.bytes == 0) {
			continue // skipped, or fio's "ignoring zero byte trace"
		}
		file, ok := files[t.device]
		if !ok {
			dev := o.Redirect
			if dev == "" {
				if dev, err = lookupDevice(t.device); err != nil {
					return nil, fmt.Errorf("%s: record %d: %w", name, tr.rec, err)
				}
			}
			file = p.addFile(dev)
			files[t.device] = file
			p.log.Entries = append(p.log.Entries, Entry{Kind: OpenFile, File: file})
		}
		p.log.addTraced(k, file, delay, t, o)
	}
	l := p.log
	for i := range l.Files {
		l.Entries = append(l.Entries, Entry{Kind: CloseFile, File: i})
	}
	l.Depth = probe.result(l)
	if l.Reads == 0 && l.Writes == 0 && l.Trims == 0 && l.Syncs == 0 {
		return nil, fmt.Errorf("%s: found no ios in blktrace data", name)
	}
	return l, nil
}

// traceReader reads a blktrace file's records in order, with the byte
// order its first record's magic shows.
type traceReader struct {
	r     io.Reader
	name  string
	buf   []byte
	order binary.ByteOrder
	rec   int // records read, for errors: the 1-based number of the last
}

// next returns the next record, ok false at the end of the trace. It
// checks the magic and version and skips the record's payload.
func (tr *traceReader) next() (t trace, ok bool, err error) {
	if _, err := io.ReadFull(tr.r, tr.buf); err != nil {
		if errors.Is(err, io.EOF) {
			return trace{}, false, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return trace{}, false, fmt.Errorf("%s: record %d: short read (a truncated trace)", tr.name, tr.rec+1)
		}
		return trace{}, false, fmt.Errorf("%s: %w", tr.name, err)
	}
	tr.rec++
	if tr.rec == 1 && binary.LittleEndian.Uint32(tr.buf)&0xffffff00 != blktraceMagic {
		tr.order = binary.BigEndian
	}
	t = decodeTrace(tr.buf, tr.order)
	if t.magic&0xffffff00 != blktraceMagic {
		return trace{}, false, fmt.Errorf("%s: record %d: bad magic in blktrace data: %x", tr.name, tr.rec, t.magic)
	}
	if t.magic&0xff != traceVersion {
		return trace{}, false, fmt.Errorf("%s: record %d: bad blktrace version %d (want %d)", tr.name, tr.rec, t.magic&0xff, traceVersion)
	}
	if t.pduLen > 0 {
		if _, err := io.CopyN(io.Discard, tr.r, int64(t.pduLen)); err != nil {
			return trace{}, false, fmt.Errorf("%s: record %d: short payload: %w", tr.name, tr.rec, err)
		}
	}
	return t, true, nil
}

// depthProbe finds the queue depth a trace shows per direction, as fio's
// blktrace replay probes it: the most requests queued (less merges)
// before a completion.
type depthProbe struct {
	depth, this [3]int
}

// see counts one non-notify record of category cat and action act.
func (dp *depthProbe) see(cat, act uint32) {
	d, ok := traceDir(cat)
	if !ok {
		return
	}
	switch act {
	case taQueue:
		dp.this[d]++
	case taBackmerge, taFrontmerge:
		dp.this[d]--
	case taComplete:
		dp.depth[d] = max(dp.depth[d], dp.this[d])
		dp.this[d] = 0
	}
}

// result is the replay's depth for l: the deepest direction, capped at
// maxProbedDepth, and at least 1 for a direction with I/Os.
func (dp *depthProbe) result(l *Log) int {
	out := 0
	for d, v := range dp.depth {
		n := [3]uint64{l.Reads, l.Writes, l.Trims}[d]
		switch {
		case v > maxProbedDepth:
			v = maxProbedDepth
		case v == 0 && n > 0:
			v = 1
		}
		out = max(out, v)
	}
	return out
}

// traceKind is the entry kind of a queued record of category cat, ok false
// when skip leaves that kind out.
func traceKind(cat uint32, skip Skip) (Kind, bool) {
	switch {
	case cat&tcDiscard != 0:
		return Trim, skip&SkipTrim == 0
	case cat&tcFlush != 0:
		return Sync, skip&SkipSync == 0
	case cat&tcWrite != 0:
		return Write, skip&SkipWrite == 0
	}
	return Read, skip&SkipRead == 0
}

// addTraced appends the entry of queued record t, of kind k on file, and
// counts it.
func (l *Log) addTraced(k Kind, file int, delay uint64, t trace, o Options) {
	e := Entry{Kind: k, File: file, Delay: delay}
	switch k {
	case Sync:
		l.Syncs++
	default:
		e.Offset, e.Len = t.sector*512, uint64(t.bytes)
		if o.Scale > 1 {
			e.Offset /= o.Scale
		}
		if o.Align > 0 {
			e.Offset &^= o.Align - 1
		}
		switch k {
		case Read:
			l.Reads++
		case Write:
			l.Writes++
		default:
			l.Trims++
		}
		l.MaxLen[k] = max(l.MaxLen[k], e.Len)
		l.Bytes += e.Len
	}
	l.Entries = append(l.Entries, e)
}

// traceDir is fio's t_get_ddir: 0 read, 1 write, 2 discard.
func traceDir(cat uint32) (int, bool) {
	switch {
	case cat&tcRead != 0:
		return 0, true
	case cat&tcWrite != 0:
		return 1, true
	case cat&tcDiscard != 0:
		return 2, true
	}
	return 0, false
}

// lookupDevice finds the block device dev (MAJOR<<20|MINOR) under /dev,
// as fio's blktrace_lookup_device does (symbolic links are not
// followed).
func lookupDevice(dev uint32) (string, error) {
	maj, min := dev>>minorBits, dev&minorMask
	var found string
	err := filepath.WalkDir(blktraceDevRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type()&fs.ModeDevice == 0 || d.Type()&fs.ModeCharDevice != 0 {
			return nil
		}
		var st unix.Stat_t
		if unix.Lstat(path, &st) != nil {
			return nil
		}
		if unix.Major(uint64(st.Rdev)) == maj && unix.Minor(uint64(st.Rdev)) == min {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("did not find replay device %d:%d under %s (set replay_redirect)", maj, min, blktraceDevRoot)
	}
	return found, nil
}
