package iolog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rec is one record of a test trace: its time, its sector (which names
// it), its action and the payload after it.
type rec struct {
	time, sector uint64
	action       uint32
	pdu          int
}

const (
	qRead     = taQueue | tcRead<<tcShift
	qWrite    = taQueue | tcWrite<<tcShift
	cRead     = taComplete | tcRead<<tcShift
	notifyRec = 1 | tcNotify<<tcShift
)

// traceOf encodes records in byte order o with their payloads.
func traceOf(o binary.ByteOrder, recs ...rec) []byte {
	var out []byte
	for _, r := range recs {
		b := make([]byte, traceLen+r.pdu)
		o.PutUint32(b[0:], blktraceMagic|traceVersion)
		o.PutUint64(b[8:], r.time)
		o.PutUint64(b[16:], r.sector)
		o.PutUint32(b[24:], 4096)
		o.PutUint32(b[28:], r.action)
		o.PutUint32(b[36:], 7<<20|9)
		o.PutUint16(b[46:], uint16(r.pdu))
		for i := traceLen; i < len(b); i++ {
			b[i] = 0xee
		}
		out = append(out, b...)
	}
	return out
}

// merged merges the inputs and returns "time/sector" per record written,
// checking that each is a payload-free little-endian record.
func merged(t *testing.T, inputs ...MergeInput) string {
	t.Helper()
	var buf bytes.Buffer
	if err := MergeBlktraces(&buf, inputs); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if len(out)%traceLen != 0 {
		t.Fatalf("merged trace of %d bytes, not whole records", len(out))
	}
	var got []string
	for i := 0; i < len(out); i += traceLen {
		r := decodeTrace(out[i:], binary.LittleEndian)
		if r.magic != blktraceMagic|traceVersion || r.pduLen != 0 || r.device != 7<<20|9 {
			t.Fatalf("record %d: magic %x, pdu_len %d, device %x", i/traceLen, r.magic, r.pduLen, r.device)
		}
		got = append(got, fmt.Sprintf("%d/%d", r.time, r.sector))
	}
	return strings.Join(got, " ")
}

// TestMergeBlktraces checks fio's merge by hand-worked examples: trace A
// at 50% for two iterations (a completion with a payload and a notify
// record between its queued I/Os are left out; its length is its last
// record's scaled time, 150; the turn writes that record once more, then
// the second run's times are (t + 150) x 50%), merged with trace B in real
// time, big-endian, ties going to the first input.
func TestMergeBlktraces(t *testing.T) {
	a := traceOf(binary.LittleEndian, rec{100, 1, qRead, 0}, rec{150, 99, cRead, 4}, rec{160, 98, notifyRec, 8}, rec{300, 2, qWrite, 0})
	b := traceOf(binary.BigEndian, rec{50, 9, qRead, 0}, rec{150, 10, qWrite, 0}, rec{200, 11, qRead, 0})
	got := merged(t,
		MergeInput{Name: "a", R: bytes.NewReader(a), Scalar: 50, Iters: 2},
		MergeInput{Name: "b", R: bytes.NewReader(b), Scalar: 100, Iters: 1})
	want := "50/1 50/9 150/2 150/2 125/1 150/10 200/11 225/2"
	if got != want {
		t.Errorf("merged %s\nwant   %s", got, want)
	}
}

// TestMergeBlktracesOrder checks fio's cursor bookkeeping: an input that
// ends is replaced by the last one, which then wins ties in its place.
func TestMergeBlktracesOrder(t *testing.T) {
	x := traceOf(binary.LittleEndian, rec{10, 1, qRead, 0})
	y := traceOf(binary.LittleEndian, rec{20, 2, qRead, 0}, rec{30, 3, qRead, 0})
	z := traceOf(binary.LittleEndian, rec{20, 4, qRead, 0}, rec{30, 5, qRead, 0})
	in := func(name string, b []byte) MergeInput {
		return MergeInput{Name: name, R: bytes.NewReader(b), Scalar: 100, Iters: 1}
	}
	got := merged(t, in("x", x), in("y", y), in("z", z))
	if want := "10/1 20/4 20/2 30/5 30/3"; got != want {
		t.Errorf("merged %s, want %s", got, want)
	}
}

// TestMergeBlktracesErrors checks the inputs a merge refuses: one that is
// not a blktrace, one shorter than a record, a truncated record.
func TestMergeBlktracesErrors(t *testing.T) {
	good := traceOf(binary.LittleEndian, rec{10, 1, qRead, 0})
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte(strings.Repeat("fio version 2 iolog\n", 4)), "file is not a blktrace"},
		{good[:20], "short read on blktrace file"},
		{append(append([]byte{}, good...), good[:20]...), "truncated trace"},
	} {
		err := MergeBlktraces(&bytes.Buffer{}, []MergeInput{{Name: "bad", R: bytes.NewReader(c.data), Scalar: 100, Iters: 1}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge: %v, want %q", err, c.want)
		}
	}
}

// TestMergeBlktracesFio compares merges with the files fio wrote for the
// same traces (testdata/merge). fio 3.33 reads no record in its merge
// (its read_trace reads 8 bytes, "iolog short read"); these come from
// fio 3.42, where that is fixed, run as
//
//	MALLOC_PERTURB_=255 fio --name=m --ioengine=psync --replay_redirect=data \
//	  --read_iolog=A:B --merge_blktrace_file=OUT [--merge_blktrace_scalars=..] [--merge_blktrace_iters=..]
//
// MALLOC_PERTURB_=255 makes glibc's malloc return zeroed memory: fio 3.42
// leaves each trace's iteration and length uninitialized, so without it
// their times carry whatever the heap held. The traces hold completions
// with payloads, notify records, flushes, big- and little-endian data,
// and one (e.bin) ends in a completion, whose payload fio then skips
// from the start of the trace when the next iteration begins.
func TestMergeBlktracesFio(t *testing.T) {
	for _, c := range []struct {
		out     string
		names   []string
		scalars []int
		iters   []int
	}{
		{"ab.fio342", []string{"a.bin", "b.bin"}, nil, nil},
		{"ab-50x2-100x1.fio342", []string{"a.bin", "b.bin"}, []int{50, 100}, []int{2, 1}},
		{"dca-2-3-1.fio342", []string{"d.bin", "c.bin", "a.bin"}, nil, []int{2, 3, 1}},
		{"ed-2-1.fio342", []string{"e.bin", "d.bin"}, nil, []int{2, 1}},
		{"cd-33x3-150x2.fio342", []string{"c.bin", "d.bin"}, []int{33, 150}, []int{3, 2}},
	} {
		var inputs []MergeInput
		for i, name := range c.names {
			data, err := os.ReadFile(filepath.Join("testdata", "merge", name))
			if err != nil {
				t.Fatal(err)
			}
			in := MergeInput{Name: name, R: bytes.NewReader(data), Scalar: 100, Iters: 1}
			if c.scalars != nil {
				in.Scalar = c.scalars[i]
			}
			if c.iters != nil {
				in.Iters = c.iters[i]
			}
			inputs = append(inputs, in)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "merge", c.out))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := MergeBlktraces(&got, inputs); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: %d bytes merged, fio wrote %d; first difference at byte %d", c.out, got.Len(), len(want), firstDiff(got.Bytes(), want))
		}
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
