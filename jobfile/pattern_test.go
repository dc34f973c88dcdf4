package jobfile

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParsePattern checks parsePattern against the examples of fio 3.33's
// lib/pattern.c and the bytes fio 3.33 wrote for each value here with
// `--rw=write --buffer_pattern=VALUE` (compared byte for byte).
func TestParsePattern(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.bin")
	if err := os.WriteFile(file, []byte("XYZ\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, bytes.Repeat([]byte{7}, 600), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		want string
	}{
		// lib/pattern.c's own examples #1 to #6 and #10.
		{`"abcd"`, "abcd"},
		{`-1024`, "\x00\xfc\xff\xff"},
		{`66`, "\x42"},
		{`0xFF0X1`, "\xff\x01"},
		{`"123"0xFFeeCC`, "123\xff\xee\xcc"},
		{`0xfefefefefefefefefefefefefefefefefefefefefe`, strings.Repeat("\xfe", 21)},
		// fio's t/jobs/t0028: "abcd", -12, 0xdeadface.
		{`"abcd"-120xdeadface`, "abcd\xf4\xff\xff\xff\xde\xad\xfa\xce"},
		{`-100xab"1"`, "\xf6\xff\xff\xff\xab1"},
		{`0xff0x14`, "\xff\x14"},
		{`0xabc`, "\x0a\xbc"},
		{`256`, "\x00\x01"},
		{`0`, "\x00"},
		{`+5`, "\x05"},
		{`12 34`, "\x0c\x22"},
		{`2147483647`, "\xff\xff\xff\x7f"},
		{`-2147483648`, "\x00\x00\x00\x80"},
		{`-1`, "\xff\xff\xff\xff"},
		{`-129`, "\x7f\xff\xff\xff"},
		{`65536`, "\x00\x00\x01"},
		{`0xab0X1`, "\xab\x01"},
		{`5"0x"`, "\x050x"},
		{`"a"0x1"b"-2`, "a\x01b\xfe\xff\xff\xff"},
		{`'` + file + `'`, "XYZ\x01\x02"},
		{`"ab"'` + file + `'0x01`, "abXYZ\x01\x02\x01"},
		{`"ab"'` + big + `'`, "ab" + strings.Repeat("\x07", 510)},
	} {
		got, formats, err := parsePattern(c.in, false)
		if err != nil || string(got) != c.want || formats != nil {
			t.Errorf("parsePattern(%s) = %x, %v, %v; want %x", c.in, got, formats, err, c.want)
		}
	}
	// Values fio 3.33 refuses ("failed parsing"; "" trips its assertion).
	for _, in := range []string{`0x`, `""`, `99999999999`, `0xab"`, `abc`, `%o`, `"unterminated`, `'` + filepath.Join(dir, "none") + `'`,
		"0x" + strings.Repeat("00", 513), `"abcd"-120xdeadface 66 0xff`, `1 0x10`} {
		if got, _, err := parsePattern(in, false); err == nil {
			t.Errorf("parsePattern(%.40s) = %x, want an error", in, got)
		}
	}
}

// TestParsePatternFormats checks verify_pattern's %o: 8 zero bytes at each
// format's place, examples #7 and #9 of fio 3.33's lib/pattern.c.
func TestParsePatternFormats(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    string
		formats []int
	}{
		{`%o`, strings.Repeat("\x00", 8), []int{0}},
		{`-100xab"1"%o"2"`, "\xf6\xff\xff\xff\xab1" + strings.Repeat("\x00", 8) + "2", []int{6}},
		{`%o0xdeadbeef%o`, strings.Repeat("\x00", 8) + "\xde\xad\xbe\xef" + strings.Repeat("\x00", 8), []int{0, 12}},
	} {
		got, formats, err := parsePattern(c.in, true)
		if err != nil || string(got) != c.want || !slices.Equal(formats, c.formats) {
			t.Errorf("parsePattern(%s) = %x, %v, %v; want %x, %v", c.in, got, formats, err, c.want, c.formats)
		}
	}
	for _, in := range []string{`%x`, strings.Repeat("%o", 9)} {
		if _, _, err := parsePattern(in, true); err == nil {
			t.Errorf("parsePattern(%s): want an error", in)
		}
	}
}
