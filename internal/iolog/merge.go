package iolog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MergeInput is one blktrace trace of a merge (merge_blktrace_file): its
// name for errors, its data, the percentage its times are scaled by
// (merge_blktrace_scalars, 100 for real time) and how many times it runs
// (merge_blktrace_iters, 1 for once).
type MergeInput struct {
	Name   string
	R      io.ReadSeeker
	Scalar int
	Iters  int
}

// mergeCursor is where a merge stands in one input: fio's
// blktrace_cursor.
type mergeCursor struct {
	in     MergeInput
	order  binary.ByteOrder
	buf    []byte
	t      trace  // the record read last
	iter   int    // the iteration running, from 0
	length uint64 // the trace's length, set at its first end
}

// MergeBlktraces writes the queued reads, writes, discards and flushes of
// several blktrace traces to w as one trace ordered by time, as fio's
// merge_blktrace_iologs (blktrace.c, as fixed after fio 3.33, whose
// version reads no record): each record's time is (time + iteration x the
// trace's length) x its scalar / 100, where the length is the time of the
// last record of the trace's first run (already scaled when that record
// was queued I/O); the earliest record of all inputs goes first, the first
// input on a tie, and an input that ends one of its iterations starts again
// with its last record still pending, so that record is written once more
// at the turn, as fio writes it. Records are written without their
// payloads, little-endian; other events and payloads are left out. An
// input with no queued I/O is dropped.
func MergeBlktraces(w io.Writer, inputs []MergeInput) error {
	if len(inputs) == 0 {
		return errNoMergeInputs
	}
	active := make([]*mergeCursor, 0, len(inputs))
	for _, in := range inputs {
		c := &mergeCursor{in: in, buf: make([]byte, traceLen)}
		if c.in.Iters < 1 {
			c.in.Iters = 1
		}
		if err := c.start(); err != nil {
			return err
		}
		ok, err := c.read()
		if err != nil {
			return err
		}
		if ok {
			active = append(active, c)
		}
	}
	out := make([]byte, traceLen)
	for len(active) > 0 {
		i := 0
		earliest := ^uint64(0)
		for k, c := range active {
			if c.t.time < earliest {
				earliest, i = c.t.time, k
			}
		}
		c := active[i]
		if err := c.skipPayload(); err != nil {
			return err
		}
		c.t.pduLen = 0
		encodeRecord(out, c.t)
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("write merged blktrace: %w", err)
		}
		ok, err := c.read()
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		c.iter++
		if c.iter < c.in.Iters {
			if _, err := c.in.R.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("%s: %w", c.in.Name, err)
			}
			continue
		}
		last := len(active) - 1
		active[i] = active[last]
		active = active[:last]
	}
	return nil
}

// start checks that the input is a blktrace, and in which byte order, by
// its first record, and rewinds it.
func (c *mergeCursor) start() error {
	if _, err := io.ReadFull(c.in.R, c.buf); err != nil {
		return fmt.Errorf("%s: short read on blktrace file: %w", c.in.Name, err)
	}
	switch {
	case binary.LittleEndian.Uint32(c.buf)&0xffffff00 == blktraceMagic:
		c.order = binary.LittleEndian
	case binary.BigEndian.Uint32(c.buf)&0xffffff00 == blktraceMagic:
		c.order = binary.BigEndian
	default:
		return fmt.Errorf("%s: file is not a blktrace", c.in.Name)
	}
	_, err := c.in.R.Seek(0, io.SeekStart)
	return err
}

// read reads the input's next queued I/O into c.t, its time moved by the
// iteration and scaled, skipping other records and their payloads; ok is
// false at the end of the input, where c.t keeps the record read last and
// the first end sets the trace's length from it.
func (c *mergeCursor) read() (ok bool, err error) {
	for {
		n, err := io.ReadFull(c.in.R, c.buf)
		if n == 0 && err == io.EOF {
			if c.length == 0 {
				c.length = c.t.time
			}
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%s: short read (a truncated trace): %w", c.in.Name, err)
		}
		c.t = decodeTrace(c.buf, c.order)
		if _, ok := traceDir(c.t.action >> tcShift); !ok || c.t.action&0xffff != taQueue {
			if err := c.skipPayload(); err != nil {
				return false, err
			}
			continue
		}
		c.t.time = (c.t.time + uint64(c.iter)*c.length) * uint64(int64(c.in.Scalar)) / 100
		return true, nil
	}
}

// skipPayload skips the payload of the record read last.
func (c *mergeCursor) skipPayload() error {
	if c.t.pduLen == 0 {
		return nil
	}
	if _, err := c.in.R.Seek(int64(c.t.pduLen), io.SeekCurrent); err != nil {
		return fmt.Errorf("%s: %w", c.in.Name, err)
	}
	return nil
}

// encodeRecord writes t into b (traceLen bytes) little-endian.
func encodeRecord(b []byte, t trace) {
	o := binary.LittleEndian
	o.PutUint32(b[0:], t.magic)
	o.PutUint32(b[4:], t.sequence)
	o.PutUint64(b[8:], t.time)
	o.PutUint64(b[16:], t.sector)
	o.PutUint32(b[24:], t.bytes)
	o.PutUint32(b[28:], t.action)
	o.PutUint32(b[32:], t.pid)
	o.PutUint32(b[36:], t.device)
	o.PutUint32(b[40:], t.cpu)
	o.PutUint16(b[44:], t.errno)
	o.PutUint16(b[46:], t.pduLen)
}

// errNoMergeInputs is returned for a merge of nothing.
var errNoMergeInputs = errors.New("no blktrace to merge")
