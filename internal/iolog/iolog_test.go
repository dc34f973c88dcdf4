package iolog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parse(t *testing.T, text string, o Options) (*Log, error) {
	t.Helper()
	return Parse(strings.NewReader(text), "x.log", o)
}

const v3 = `fio version 3 iolog
20 /f add
125 /f open
129 /f read 0 4096
100129 /f write 8192 8192
300129 /f sync 8192 0
300200 /f close
`

func TestParseV3(t *testing.T) {
	l, err := parse(t, v3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 3 || len(l.Files) != 1 || l.Files[0] != "/f" {
		t.Fatalf("version %d files %v", l.Version, l.Files)
	}
	want := []Entry{
		{Kind: AddFile},
		{Kind: OpenFile, Delay: 105},
		{Kind: Read, Offset: 0, Len: 4096, Delay: 4},
		{Kind: Write, Offset: 8192, Len: 8192, Delay: 100000},
		{Kind: Sync, Offset: 8192, Delay: 200000},
		{Kind: CloseFile, Delay: 71},
	}
	if len(l.Entries) != len(want) {
		t.Fatalf("entries %+v", l.Entries)
	}
	for i, e := range want {
		if l.Entries[i] != e {
			t.Errorf("entry %d: got %+v want %+v", i, l.Entries[i], e)
		}
	}
	if l.Reads != 1 || l.Writes != 1 || l.Syncs != 1 || l.Bytes != 12288 || l.MaxLen != [3]uint64{4096, 8192, 0} {
		t.Errorf("counts %+v", l)
	}
}

func TestParseV3Options(t *testing.T) {
	l, err := parse(t, v3, Options{TimeScale: 200, Scale: 2, Align: 8192, Redirect: "/dev/x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 1 || l.Files[0] != "/dev/x" {
		t.Fatalf("files %v", l.Files)
	}
	w := l.Entries[2]                      // the add line of the redirect target is dropped
	if w.Delay != 50000 || w.Offset != 0 { // 8192/2 = 4096, aligned down to 8192 = 0
		t.Errorf("write entry %+v", w)
	}
	l, err = parse(t, v3, Options{NoStall: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if e.Delay != 0 {
			t.Errorf("replay_no_stall left a delay: %+v", e)
		}
	}
}

func TestParseV2Wait(t *testing.T) {
	const v2 = "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait 300 0\n/f datasync 0 0\n/f close\n"
	l, err := parse(t, v2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 2 || l.Entries[3] != (Entry{Kind: Wait, Delay: 300}) || l.Entries[4].Kind != Datasync {
		t.Fatalf("entries %+v", l.Entries)
	}
	l, err = parse(t, v2, Options{NoStall: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if e.Kind == Wait {
			t.Errorf("replay_no_stall kept a wait")
		}
	}
}

// TestParseSkipsTextTrims: fio 3.33's read_iolog does not replay the
// trim lines of a text log (it reports "bad ddir: 2" and goes on).
func TestParseSkipsTextTrims(t *testing.T) {
	l, err := parse(t, "fio version 2 iolog\n/f add\n/f trim 0 4096\n/f write 0 4096\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Trims != 0 || l.SkippedTrims != 1 || l.Writes != 1 || len(l.Entries) != 2 {
		t.Errorf("trims %d skipped %d writes %d entries %+v", l.Trims, l.SkippedTrims, l.Writes, l.Entries)
	}
}

func TestParseAppendedRun(t *testing.T) {
	// fio appends to write_iolog=: a second run adds a header.
	l, err := parse(t, v3+v3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Reads != 2 || l.Entries[6].Delay != 0 {
		t.Errorf("reads %d, second add's delay %d", l.Reads, l.Entries[6].Delay)
	}
}

func TestParseBad(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "x.log:1: empty file"},
		{"/f read 0 4096\n", "x.log:1: iolog version 1 is no longer supported"},
		{"fio version 3 iolog\n1 /f add\n2 /f frob 0 1\n", "x.log:3: bad iolog file action \"frob\""},
		{"fio version 3 iolog\n1 /f add\nabc /f read 0 1\n", "x.log:3: bad iolog3 line"},
		{"fio version 3 iolog\n1 /f add\n2 /f read x 1\n", "x.log:3: bad offset"},
		{"fio version 3 iolog\n1 /f add\n2 /f read 0 1 9\n", "x.log:3: bad iolog3 line"},
		{"fio version 3 iolog\n1 /f add\n2 /f wait 0 1\n", "x.log:3: wait is not allowed"},
		{"fio version 2 iolog\n/g read 0 4096\n", "x.log:2: read 0: file /g was not added"},
		{"fio version 2 iolog\n/f add\n\n", "x.log:3: empty line"},
		{"fio version 2 iolog\n/f add\n/f open\n", "the log has no I/O to replay"},
	}
	for _, c := range cases {
		_, err := parse(t, c.text, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}

// TestParseBlktrace reads a small trace: queue events become I/Os with
// the gaps between their times, other events only count towards the
// probed depth, replay_skip leaves directions out.
func TestParseBlktrace(t *testing.T) {
	dev := uint32(7<<20 | 3)
	var b []byte
	b = append(b, EncodeTrace(Read, 1000, 8, 4096, dev)...)
	b = append(b, EncodeTrace(Read, 2_000_000, 16, 4096, dev)...)
	b = append(b, EncodeTrace(Write, 5_000_000, 0, 8192, dev)...)
	b = append(b, EncodeTrace(Sync, 6_000_000, 0, 0, dev)...)
	b = append(b, EncodeTrace(Read, 7_000_000, 24, 0, dev)...) // zero bytes: ignored
	// A completion of a read: not replayed; it closes a depth of 3 (the
	// zero-byte read counts, as in fio).
	c := EncodeTrace(Read, 8_000_000, 8, 4096, dev)
	c[28] = taComplete
	b = append(b, c...)
	l, err := Parse(strings.NewReader(string(b)), "t.bin", Options{Redirect: "/dev/x"})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Blktrace || len(l.Files) != 1 || l.Files[0] != "/dev/x" || l.Depth != 3 {
		t.Fatalf("blktrace %v files %v depth %d", l.Blktrace, l.Files, l.Depth)
	}
	want := []Entry{
		{Kind: OpenFile},
		{Kind: Read, Offset: 4096, Len: 4096},
		{Kind: Read, Offset: 8192, Len: 4096, Delay: 1999},
		{Kind: Write, Offset: 0, Len: 8192, Delay: 3000},
		{Kind: Sync, Delay: 1000},
		{Kind: CloseFile},
	}
	if len(l.Entries) != len(want) {
		t.Fatalf("entries %+v", l.Entries)
	}
	for i, e := range want {
		if l.Entries[i] != e {
			t.Errorf("entry %d: got %+v want %+v", i, l.Entries[i], e)
		}
	}
	l, err = Parse(strings.NewReader(string(b)), "t.bin", Options{Redirect: "/dev/x", Skip: SkipRead | SkipSync})
	if err != nil {
		t.Fatal(err)
	}
	if l.Reads != 0 || l.Syncs != 0 || l.Writes != 1 {
		t.Errorf("replay_skip=read,sync: %d reads %d writes %d syncs", l.Reads, l.Writes, l.Syncs)
	}
	if _, err := Parse(strings.NewReader(string(b[:70])), "t.bin", Options{Redirect: "/dev/x"}); err == nil || !strings.Contains(err.Error(), "t.bin: record 2: short read") {
		t.Errorf("truncated trace: %v", err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.log")
	w, err := Create(p, []string{"/a", "/b"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	w.FileAction(10, 1, OpenFile)
	w.IO(12, 1, Write, 4096, 8192)
	w.IO(15, 1, Sync, 4096, 0)
	w.FileAction(20, 1, CloseFile)
	if n := testing.AllocsPerRun(100, func() { w.IO(30, 0, Read, 123456789, 4096) }); n != 0 {
		t.Errorf("IO allocates %v times per line", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "fio version 3 iolog\n3 /a add\n3 /b add\n10 /b open\n12 /b write 4096 8192\n15 /b sync 4096 0\n20 /b close\n"
	if !strings.HasPrefix(string(b), want) {
		t.Fatalf("got\n%s", b)
	}
	l, err := ParseFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Reads != 101 || l.Writes != 1 || l.Syncs != 1 {
		t.Errorf("round trip counts %d %d %d", l.Reads, l.Writes, l.Syncs)
	}
}

func TestParseReadOnlySkipsWrites(t *testing.T) {
	l, err := parse(t, v3, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.Writes != 0 || l.SkippedWrites != 1 || l.Reads != 1 {
		t.Errorf("reads %d writes %d skipped %d", l.Reads, l.Writes, l.SkippedWrites)
	}
	for _, e := range l.Entries {
		if e.Kind == Write {
			t.Errorf("a write was kept: %+v", e)
		}
	}
}
