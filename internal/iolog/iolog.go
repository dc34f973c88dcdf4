// Package iolog reads and writes fio's I/O logs (write_iolog=,
// read_iolog=): the text formats fio 3.33 reads, versions 2 and 3,
// blktrace binary traces, and the version 3 log it writes. It knows nothing of the run loop: Parse
// turns a log into a list of entries with fio's replay options applied
// (replay_redirect, replay_scale, replay_align, replay_time_scale,
// replay_no_stall), and Writer formats lines without allocating.
//
// Rules: a log is parsed whole, before any job starts, so that a bad
// line is refused with its file:line and nothing is written (fio logs
// such a line and skips it). The times in an entry are fio's: the delay
// of a version 3 entry is the scaled gap since the previous line, in
// microseconds; a version 2 wait is milliseconds since the job started.
package iolog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Header2 and Header3 are the first lines of fio's version 2 and 3 logs.
const (
	Header2 = "fio version 2 iolog"
	Header3 = "fio version 3 iolog"
)

// Kind is what an entry does.
type Kind uint8

// The kinds of entries: an I/O (read, write, trim, sync, datasync), a
// file action, and a version 2 wait.
const (
	Read Kind = iota
	Write
	Trim
	Sync
	Datasync
	Wait
	AddFile
	OpenFile
	CloseFile
	// SyncFileRange is written by write_iolog only: fio 3.33 logs a
	// sync_file_range but its replay refuses the line.
	SyncFileRange
)

var kindNames = [...]string{"read", "write", "trim", "sync", "datasync", "wait", "add", "open", "close", "sync_file_range"}

// String is the kind's name as it appears in a log.
func (k Kind) String() string { return kindNames[k] }

// IsIO reports whether the entry is an I/O the job issues.
func (k Kind) IsIO() bool { return k <= Datasync }

// Entry is one line of a log that the replay acts on.
type Entry struct {
	Kind   Kind
	File   int    // index into Log.Files
	Offset uint64 // after replay_scale and replay_align
	Len    uint64
	// Delay is how long to wait before the entry: for version 3 the gap
	// since the previous line in microseconds, scaled by
	// replay_time_scale (0 with replay_no_stall); for a version 2 wait,
	// the milliseconds since the job's start to wait until.
	Delay uint64
}

// Log is a parsed log.
type Log struct {
	Version  int
	Blktrace bool // read from a blktrace binary trace
	// Depth is the queue depth a blktrace shows (0 for a text log).
	Depth   int
	Files   []string // in the order the log adds them (one with replay_redirect)
	Entries []Entry
	// Reads, Writes, Syncs count the I/O entries by kind (trims apart);
	// Bytes is the sum of every entry's length, fio's o.size for the job.
	Reads, Writes, Trims, Syncs uint64
	Bytes                       uint64
	// SkippedWrites counts the writes Options.ReadOnly dropped.
	SkippedWrites uint64
	// SkippedTrims counts the trim lines of a text log, which fio 3.33
	// does not replay ("bad ddir: 2"): its read_iolog counts reads,
	// writes, waits and syncs only.
	SkippedTrims uint64
	// MaxLen is the largest I/O length per direction (read, write, trim).
	MaxLen [3]uint64
}

// Options are fio's replay_* options as they change what Parse returns.
type Options struct {
	Redirect  string // replay_redirect: every I/O goes to this file
	Scale     uint64 // replay_scale: offsets divided by it (0 or 1: unchanged)
	Align     uint64 // replay_align: offsets rounded down to it (0: unchanged)
	TimeScale uint64 // replay_time_scale percent (0 means 100)
	NoStall   bool   // replay_no_stall: no delays, no waits
	ReadOnly  bool   // --readonly: writes are dropped, as fio does
	Skip      Skip   // replay_skip: directions a blktrace replay leaves out
}

// blktraceMagic is BLK_IO_TRACE_MAGIC, the first field of every trace
// record, in the file's byte order.
const blktraceMagic = 0x65617400

// IsBlktrace reports whether the first bytes of a file are a blktrace
// record header, in either byte order, as fio's is_blktrace checks.
func IsBlktrace(head []byte) bool {
	if len(head) < 8 {
		return false
	}
	le := uint32(head[0]) | uint32(head[1])<<8 | uint32(head[2])<<16 | uint32(head[3])<<24
	be := uint32(head[3]) | uint32(head[2])<<8 | uint32(head[1])<<16 | uint32(head[0])<<24
	return le&0xffffff00 == blktraceMagic || be&0xffffff00 == blktraceMagic
}

// ParseFile reads and parses the log at path ("-": standard input).
func ParseFile(path string, o Options) (*Log, error) {
	if path == "-" {
		return Parse(os.Stdin, "stdin", o)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read_iolog=%s: %w", path, err)
	}
	defer f.Close()
	return Parse(f, path, o)
}

// Parse parses a version 2 or 3 log read from r; name is the file's name
// in error messages, which have the shape "name:line: what".
func Parse(r io.Reader, name string, o Options) (*Log, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(8)
	if IsBlktrace(head) {
		return ParseBlktrace(br, name, o)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	p := parser{name: name, o: o, log: &Log{}, index: map[string]int{}}
	if o.TimeScale == 0 {
		p.o.TimeScale = 100
	}
	if o.Redirect != "" {
		p.addFile(o.Redirect)
	}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, fmt.Errorf("%s:1: empty file: not an iolog (want %q or %q)", name, Header2, Header3)
	}
	switch first := sc.Text(); {
	case strings.HasPrefix(first, Header2):
		p.log.Version = 2
	case strings.HasPrefix(first, Header3):
		p.log.Version = 3
	default:
		return nil, fmt.Errorf("%s:1: iolog version 1 is no longer supported (fio 3.33 reads only logs starting %q or %q)", name, Header2, Header3)
	}
	line := 1
	for sc.Scan() {
		line++
		if err := p.line(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	l := p.log
	if l.Reads == 0 && l.Writes == 0 && l.Trims == 0 && l.Syncs == 0 {
		return nil, fmt.Errorf("%s: the log has no I/O to replay", name)
	}
	return l, nil
}

type parser struct {
	name      string
	o         Options
	log       *Log
	index     map[string]int
	lastTTime uint64
}

func (p *parser) addFile(name string) int {
	if i, ok := p.index[name]; ok {
		return i
	}
	p.index[name] = len(p.log.Files)
	p.log.Files = append(p.log.Files, name)
	return len(p.log.Files) - 1
}

// delay is fio's delay_since_ttime: the scaled gap to the previous
// line's time, 0 for the first line, under replay_no_stall and when time
// goes backwards.
func (p *parser) delay(t uint64) uint64 {
	last := p.lastTTime
	p.lastTTime = t
	if last == 0 || p.o.NoStall || t < last {
		return 0
	}
	if p.o.TimeScale == 100 {
		return t - last
	}
	return uint64(float64(t-last) * (100.0 / float64(p.o.TimeScale)))
}

func (p *parser) line(b []byte) error {
	f := bytes.Fields(b)
	if len(f) == 0 {
		return errors.New("empty line")
	}
	v3 := p.log.Version == 3
	var delay uint64
	if v3 {
		if string(b) == Header3 {
			// fio appends to write_iolog=: a rerun adds another header,
			// and its times start over.
			p.lastTTime = 0
			return nil
		}
		t, err := strconv.ParseUint(string(f[0]), 10, 64)
		if err != nil {
			return fmt.Errorf("bad iolog3 line %q: the first field is not a time in microseconds", b)
		}
		delay = p.delay(t)
		f = f[1:]
	}
	if len(f) < 2 {
		return fmt.Errorf("bad iolog%d line %q: want %sFILE ACTION [OFFSET LENGTH]", p.log.Version, b, timeField(v3))
	}
	fname, act := string(f[0]), string(f[1])
	if p.o.Redirect != "" {
		fname = p.o.Redirect
	}
	switch len(f) {
	case 2:
		return p.fileAction(b, fname, act, delay)
	case 4:
	default:
		return fmt.Errorf("bad iolog%d line %q: want %sFILE ACTION [OFFSET LENGTH]", p.log.Version, b, timeField(v3))
	}
	k, err := ioAction(act, v3)
	if err != nil {
		return err
	}
	off, err := strconv.ParseUint(string(f[2]), 10, 64)
	if err != nil {
		return fmt.Errorf("bad offset %q: %w", f[2], err)
	}
	n, err := strconv.ParseUint(string(f[3]), 10, 32)
	if err != nil {
		return fmt.Errorf("bad length %q: %w", f[3], err)
	}
	if k == Wait {
		if !p.o.NoStall {
			p.log.Entries = append(p.log.Entries, Entry{Kind: Wait, Delay: off})
		}
		return nil
	}
	file, ok := p.index[fname]
	if !ok {
		return fmt.Errorf("%s %s: file %s was not added (no \"%s add\" line before it)", act, f[2], fname, fname)
	}
	p.addIO(k, file, off, n, delay)
	return nil
}

// ioAction is the entry kind of an I/O line's action; wait exists only
// before version 3.
func ioAction(act string, v3 bool) (Kind, error) {
	switch act {
	case "read":
		return Read, nil
	case "write":
		return Write, nil
	case "trim":
		return Trim, nil
	case "sync":
		return Sync, nil
	case "datasync":
		return Datasync, nil
	case "wait":
		if v3 {
			return 0, fmt.Errorf("wait is not allowed in a version 3 iolog")
		}
		return Wait, nil
	}
	return 0, fmt.Errorf("bad iolog file action %q (want read, write, trim, sync, datasync or wait)", act)
}

// addIO counts an I/O line of kind k and appends its entry, as fio's replay
// keeps it: writes left out of a read-only replay, trims skipped, offsets
// scaled and aligned.
func (p *parser) addIO(k Kind, file int, off, n, delay uint64) {
	l := p.log
	switch k {
	case Read:
		l.Reads++
	case Write:
		if p.o.ReadOnly {
			l.SkippedWrites++
			return
		}
		l.Writes++
	case Trim:
		l.SkippedTrims++
		return
	default:
		l.Syncs++
	}
	if p.o.Scale > 1 {
		off /= p.o.Scale
	}
	if p.o.Align > 0 {
		off &^= p.o.Align - 1
	}
	if k <= Trim {
		l.MaxLen[k] = max(l.MaxLen[k], n)
	}
	l.Bytes += n
	l.Entries = append(l.Entries, Entry{Kind: k, File: file, Offset: off, Len: n, Delay: delay})
}

func timeField(v3 bool) string {
	if v3 {
		return "TIME "
	}
	return ""
}

func (p *parser) fileAction(b []byte, fname, act string, delay uint64) error {
	var k Kind
	switch act {
	case "add":
		k = AddFile
		if _, ok := p.index[fname]; ok && p.o.Redirect != "" {
			// fio ignores a re-add of the redirect target.
			return nil
		}
		p.addFile(fname)
	case "open":
		k = OpenFile
	case "close":
		k = CloseFile
	default:
		return fmt.Errorf("bad iolog file action %q (want add, open or close)", act)
	}
	file, ok := p.index[fname]
	if !ok {
		return fmt.Errorf("%s: file %s was not added (no \"%s add\" line before it)", act, fname, fname)
	}
	p.log.Entries = append(p.log.Entries, Entry{Kind: k, File: file, Delay: delay})
	return nil
}
