package verify

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseKind(t *testing.T) {
	cases := []struct {
		in      string
		want    Kind
		errPart string
	}{
		{"", KindNone, ""},                    // unset
		{"0", KindNone, ""},                   // fio's "off"
		{"crc32c", KindCRC32C, ""},            // the common one
		{"crc32c-intel", KindCRC32CIntel, ""}, // fio's hardware alias
		{"md5", KindMD5, ""},
		{"sha256", KindSHA256, ""},
		{"meta", KindMeta, ""},
		{"pattern", KindPattern, ""},
		{"null", KindNull, ""},
		{"crc32c:extra", KindCRC32C, ""},                         // fio matches before ':'
		{"crc64", 0, "fio verify type gofio does not implement"}, // fio has it, gofio not
		{"xxhash", 0, "fio verify type gofio does not implement"},
		{"sha512", 0, "fio verify type gofio does not implement"},
		{"CRC32C", 0, "unknown verify type"}, // fio is case-sensitive
		{"crc", 0, "unknown verify type"},    // no prefix match
	}
	for _, c := range cases {
		got, err := ParseKind(c.in)
		if c.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), c.errPart) || !strings.Contains(err.Error(), "crc32c, crc32c-intel") {
				t.Errorf("ParseKind(%q) = %v, %v; want error containing %q and the supported list", c.in, got, err, c.errPart)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestNewRejects(t *testing.T) {
	cases := []struct {
		kind     Kind
		pattern  []byte
		interval int
		errPart  string
	}{
		{KindPattern, nil, 0, "needs verify_pattern"},      // nothing to compare with
		{KindSHA256, nil, 64, "smaller than the 104-byte"}, // header + 64-byte sum do not fit
		{KindCRC32C, nil, 43, "smaller than the 44-byte"},  // one byte short
		{KindCRC32C, nil, -1, "must not be negative"},
	}
	for _, c := range cases {
		if _, err := New(c.kind, c.pattern, c.interval); err == nil || !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("New(%v, %q, %d) = %v, want error containing %q", c.kind, c.pattern, c.interval, err, c.errPart)
		}
	}
	if _, err := New(KindCRC32C, nil, 44); err != nil {
		t.Errorf("New(crc32c, interval 44) = %v, want ok", err)
	}
}

// configs are the verifier set-ups every property test runs over.
func configs() []*Verifier {
	pat := []byte{0xde, 0xad, 0xbe, 0xef, 0x01}
	return []*Verifier{
		{Kind: KindCRC32C},
		{Kind: KindCRC32CIntel},
		{Kind: KindMD5},
		{Kind: KindSHA256},
		{Kind: KindMeta},
		{Kind: KindPattern, Pattern: pat},
		{Kind: KindCRC32C, Interval: 1024},               // four headers per 4k buffer
		{Kind: KindMD5, Pattern: pat},                    // pattern data under a checksum
		{Kind: KindSHA256, Interval: 1024, Pattern: pat}, // both
	}
}

func name(v *Verifier) string {
	return fmt.Sprintf("%s/interval=%d/pattern=%x", v.Kind, v.Interval, v.Pattern)
}

// TestCleanNeverFlagged fills many buffers with different seeds, offsets and
// sizes and checks that none is reported.
func TestCleanNeverFlagged(t *testing.T) {
	for _, v := range configs() {
		for _, bs := range []int{512, 4096, 4096 + 512, 65536} {
			buf := make([]byte, bs)
			for i := 0; i < 64; i++ {
				seed := uint64(i)*0x9e3779b97f4a7c15 + 1
				off := uint64(i) * uint64(bs)
				v.Fill(buf, off, seed, uint16(i))
				if err := v.Check(buf, off); err != nil {
					t.Fatalf("%s bs=%d seed=%d: clean block flagged: %v", name(v), bs, seed, err)
				}
			}
		}
	}
}

// TestCorruptByteCaught flips one bit in every byte position of a block in
// turn and checks that Check reports it, within the right block (and at the
// exact byte for pattern). verify=meta checks only the header, as in fio, so
// for it only header bytes must be caught.
func TestCorruptByteCaught(t *testing.T) {
	const bs, off = 4096, 1 << 20
	for _, v := range configs() {
		clean := make([]byte, bs)
		v.Fill(clean, off, 42, 7)
		buf := make([]byte, bs)
		for i := 0; i < bs; i++ {
			copy(buf, clean)
			buf[i] ^= 0x10
			err := v.Check(buf, off)
			inc := bs
			if v.Interval > 0 {
				inc = v.Interval
			}
			inHeader := i%inc < HeaderLen(v.Kind)
			if v.Kind == KindMeta && !inHeader {
				if err != nil {
					t.Fatalf("%s: data byte %d: meta checks headers only, got %v", name(v), i, err)
				}
				continue
			}
			var m *Mismatch
			if !errors.As(err, &m) || !errors.Is(err, ErrMismatch) {
				t.Fatalf("%s: byte %d corrupted, Check = %v, want *Mismatch", name(v), i, err)
			}
			wantBlock := uint64(off + i/inc*inc)
			if m.BlockOffset != wantBlock || m.BlockLen != inc {
				t.Fatalf("%s: byte %d: block %d+%d, want %d+%d", name(v), i, m.BlockOffset, m.BlockLen, wantBlock, inc)
			}
			if m.What == "pattern" && m.Offset != uint64(off+i) {
				t.Fatalf("%s: byte %d: pattern mismatch at %d, want %d", name(v), i, m.Offset, off+i)
			}
		}
	}
}

// TestWrongPlace checks the header catches a block read back from another
// offset, with another block size or written with another verify type.
func TestWrongPlace(t *testing.T) {
	buf := make([]byte, 4096)
	Fill(buf, 8192, KindCRC32C, 1)
	cases := []struct {
		name string
		err  error
		what string
	}{
		{"offset", Check(buf, 4096, KindCRC32C), "header offset"},        // misdirected write/read
		{"type", Check(buf, 8192, KindMD5), "verify type"},               // written as crc32c, read as md5
		{"length", Check(buf[:2048], 8192, KindCRC32C), "header length"}, // torn or short block
		{"zeroes", Check(make([]byte, 4096), 0, KindCRC32C), "magic"},    // never written
	}
	for _, c := range cases {
		var m *Mismatch
		if !errors.As(c.err, &m) || m.What != c.what {
			t.Errorf("%s: got %v, want a %q mismatch", c.name, c.err, c.what)
		}
	}
	// crc32c and crc32c-intel share the sum, so each reads the other's blocks.
	if err := Check(buf, 8192, KindCRC32CIntel); err != nil {
		t.Errorf("crc32c block read as crc32c-intel: %v", err)
	}
}

func TestMismatchMessage(t *testing.T) {
	buf := make([]byte, 4096)
	Fill(buf, 4096, KindCRC32C, 99)
	want := fmt.Sprintf("0x%x", buf[40:44])
	buf[1000] ^= 0xff
	err := Check(buf, 4096, KindCRC32C)
	var m *Mismatch
	if !errors.As(err, &m) {
		t.Fatalf("Check = %v", err)
	}
	m.File = "/dev/shm/f1"
	msg := m.Error()
	for _, part := range []string{"crc32c mismatch", "in file /dev/shm/f1", "at offset 4096", "length 4096", "expected " + want, "got 0x"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
	if m.Expected == m.Got {
		t.Errorf("expected and got are both %s", m.Got)
	}
}

func TestPatternWithoutPattern(t *testing.T) {
	buf := make([]byte, 4096)
	Fill(buf, 0, KindPattern, 5) // fio 3.33: random data, no header
	if _, ok := ReadHeader(buf); ok {
		t.Errorf("verify=pattern without verify_pattern wrote a header")
	}
	if err := Check(buf, 0, KindPattern); err == nil || !strings.Contains(err.Error(), "needs verify_pattern") {
		t.Errorf("Check(pattern, no pattern) = %v", err)
	}
}

func TestZeroAlloc(t *testing.T) {
	buf := make([]byte, 4096)
	for _, v := range configs() {
		fill := testing.AllocsPerRun(50, func() { v.Fill(buf, 4096, 3, 1) })
		check := testing.AllocsPerRun(50, func() {
			if err := v.Check(buf, 4096); err != nil {
				t.Fatal(err)
			}
		})
		if fill != 0 || check != 0 {
			t.Errorf("%s: Fill %.0f allocs, Check %.0f allocs, want 0", name(v), fill, check)
		}
	}
	pkg := testing.AllocsPerRun(50, func() {
		Fill(buf, 0, KindCRC32C, 9)
		if Check(buf, 0, KindCRC32C) != nil {
			t.Fatal("clean block flagged")
		}
	})
	if pkg != 0 {
		t.Errorf("package Fill+Check crc32c: %.0f allocs, want 0", pkg)
	}
}

func BenchmarkFill(b *testing.B) {
	for _, v := range configs()[:4] {
		b.Run(v.Kind.String(), func(b *testing.B) {
			buf := make([]byte, 4096)
			b.SetBytes(int64(len(buf)))
			for i := 0; i < b.N; i++ {
				v.Fill(buf, uint64(i)*4096, uint64(i), 0)
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, v := range configs()[:4] {
		b.Run(v.Kind.String(), func(b *testing.B) {
			buf := make([]byte, 4096)
			v.Fill(buf, 0, 1, 0)
			b.SetBytes(int64(len(buf)))
			for i := 0; i < b.N; i++ {
				if err := v.Check(buf, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestVerifyOffset checks verify_offset: the header sits Offset bytes
// into each block (fio's magic there, not at the start), the block checks
// clean with the same offset, and a corrupt byte or the wrong offset is
// caught.
func TestVerifyOffset(t *testing.T) {
	for _, kind := range []Kind{KindCRC32C, KindMD5, KindSHA256} {
		hl := HeaderLen(kind)
		for _, off := range []int{hl, hl + 60, 4096 - hl} {
			v := &Verifier{Kind: kind, Interval: 4096, Offset: off}
			buf := make([]byte, 8192)
			v.Fill(buf, 1<<20, 7, 1)
			for b := 0; b < 2; b++ {
				if h, ok := ReadHeader(buf[b*4096+off:]); !ok || h.Offset != 1<<20+uint64(b)*4096 {
					t.Fatalf("%s offset %d: no header at byte %d of block %d", kind, off, off, b)
				}
			}
			if _, ok := ReadHeader(buf); ok {
				t.Errorf("%s offset %d: a header at the start of the block too", kind, off)
			}
			good := append([]byte(nil), buf...)
			if err := v.Check(good, 1<<20); err != nil {
				t.Errorf("%s offset %d: clean buffer: %v", kind, off, err)
			}
			plain := append([]byte(nil), buf...)
			if err := (&Verifier{Kind: kind, Interval: 4096}).Check(plain, 1<<20); err == nil {
				t.Errorf("%s offset %d: checked clean without verify_offset", kind, off)
			}
			bad := append([]byte(nil), buf...)
			bad[4096+3000] ^= 1
			if off+hl > 3000 && off <= 3000 {
				bad[4096+2000] ^= 1
			}
			if err := v.Check(bad, 1<<20); err == nil {
				t.Errorf("%s offset %d: corrupt byte not caught", kind, off)
			}
		}
	}
}

// TestPatternFormats checks verify_pattern's %o as fio 3.33 fills it: the
// I/O's offset, little-endian, pasted into the pattern once, the buffer
// the pasted pattern repeated (the bytes fio wrote for
// verify_pattern="ab"%o0xcd at offset 8192), and a read back at another
// offset fails.
func TestPatternFormats(t *testing.T) {
	v, err := New(KindPattern, []byte("ab\x00\x00\x00\x00\x00\x00\x00\x00\xcd"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v.Formats = []int{2}
	buf := make([]byte, 24)
	v.Fill(buf, 8192, 0, 0)
	want := "ab\x00\x20\x00\x00\x00\x00\x00\x00\xcd" + "ab\x00\x20\x00\x00\x00\x00\x00\x00\xcd" + "ab"
	if string(buf) != want {
		t.Errorf("Fill = %x, want %x", buf, want)
	}
	if err := v.Check(buf, 8192); err != nil {
		t.Errorf("Check at the written offset: %v", err)
	}
	var m *Mismatch
	if err := v.Check(buf, 4096); !errors.As(err, &m) || m.Offset != 4099 {
		t.Errorf("Check at another offset = %v, want a pattern mismatch at byte 3 (4099)", err)
	}
	if allocs := testing.AllocsPerRun(100, func() { v.Fill(buf, 12288, 0, 0); _ = v.Check(buf, 12288) }); allocs != 0 {
		t.Errorf("Fill and Check allocate %v times", allocs)
	}
}

// TestPatternInterval checks fio 3.40's verify_pattern_interval: the
// pattern starts afresh every PatternInterval bytes of the buffer, each
// piece with its own offset pasted (bytes 992 to 1016 of what fio 3.42
// wrote for verify_pattern=0xaabbccdd%o, verify_pattern_interval=1000,
// bs=4k at offset 0: the piece at 1000 starts the pattern again with
// 0x3e8), with and without a checksum header, and a corrupt byte is
// named where it lies.
func TestPatternInterval(t *testing.T) {
	pattern := []byte("\xaa\xbb\xcc\xdd\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, kind := range []Kind{KindPattern, KindCRC32C} {
		v, err := New(kind, pattern, 0)
		if err != nil {
			t.Fatal(err)
		}
		v.Formats, v.PatternInterval = []int{4}, 1000
		buf := make([]byte, 4096)
		v.Fill(buf, 0, 7, 1)
		want := "\x00\x00\x00\x00\xaa\xbb\xcc\xdd\xaa\xbb\xcc\xdd\xe8\x03\x00\x00\x00\x00\x00\x00\xaa\xbb\xcc\xdd"
		if got := string(buf[992:1016]); got != want {
			t.Errorf("%s: bytes 992-1016 %x, want fio 3.42's %x", kind, got, want)
		}
		if got := buf[4000:4012]; string(got) != "\xaa\xbb\xcc\xdd\xa0\x0f\x00\x00\x00\x00\x00\x00" {
			t.Errorf("%s: the last piece starts %x, want the pattern with offset 4000", kind, got)
		}
		if err := v.Check(buf, 0); err != nil {
			t.Errorf("%s: Check of what Fill wrote: %v", kind, err)
		}
		buf[2005] ^= 1
		var m *Mismatch
		// The checksum, checked first, names its block, the pattern the byte.
		wantAt := map[Kind]uint64{KindPattern: 2005, KindCRC32C: 0}[kind]
		if err := v.Check(buf, 0); !errors.As(err, &m) || m.Offset != wantAt {
			t.Errorf("%s: a corrupt byte at 2005: %v, want a mismatch at %d", kind, err, wantAt)
		}
		buf[2005] ^= 1
		if allocs := testing.AllocsPerRun(100, func() { v.Fill(buf, 8192, 7, 1); _ = v.Check(buf, 8192) }); allocs != 0 {
			t.Errorf("%s: Fill and Check allocate %v times", kind, allocs)
		}
	}
}

// TestCheckZeroes checks the trimmed-block check: zeroes pass, the first
// byte that is not zero is named, and verify=null checks nothing.
func TestCheckZeroes(t *testing.T) {
	v, err := New(KindCRC32C, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	if err := v.CheckZeroes(buf, 8192); err != nil {
		t.Errorf("zeroes: %v", err)
	}
	buf[100] = 0x5a
	var m *Mismatch
	if err := v.CheckZeroes(buf, 8192); !errors.As(err, &m) || m.Offset != 8292 || m.BlockOffset != 8192 || m.Got != "0x5a" {
		t.Errorf("byte 100 set: %v", err)
	}
	if err := (&Verifier{Kind: KindNull}).CheckZeroes(buf, 0); err != nil {
		t.Errorf("verify=null: %v", err)
	}
}
