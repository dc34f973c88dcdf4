package jobfile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// maxPatternLen is fio's MAX_PATTERN_SIZE: the most bytes a buffer_pattern
// or verify_pattern may fill.
const maxPatternLen = 512

// offsetFormatLen is the length of the %o format, fio's block offset (the
// 8 bytes of io_u->offset).
const offsetFormatLen = 8

// maxPatternFormats is the size of fio's verify_fmt array: the most %o a
// verify_pattern may hold.
const maxPatternFormats = 8

// parsePattern reads a buffer_pattern or verify_pattern as fio 3.33's
// parse_and_fill_pattern (lib/pattern.c): parts one after the other, each
// a "string" in double quotes (no escapes), a 'file' in single quotes
// (its first bytes, up to the room left), 0x hex bytes of any length (an
// odd count's first digit is a byte of its own, and a 0 followed by x ends
// the run: 0xff0x14 is ff 14), or a decimal number in the int range (its
// little-endian bytes up to the last that is not zero, one 00 for 0), which
// stops before the next "0x" anywhere after it (so -120xdeadface is -12
// then 0xdeadface). With withFormats (verify_pattern), %o reserves 8 bytes
// for the offset of each I/O, at the positions returned in formats. The
// whole fills at most 512 bytes (fio's MAX_PATTERN_SIZE); a part that fills
// nothing is an error, as fio's assertion stops fio there.
func parsePattern(s string, withFormats bool) (pattern []byte, formats []int, err error) {
	if s == "" {
		return nil, nil, errors.New("empty pattern")
	}
	for in := s; in != ""; {
		room := maxPatternLen - len(pattern)
		if room == 0 {
			return nil, nil, fmt.Errorf("%q: the pattern fills more than %d bytes", s, maxPatternLen)
		}
		var part []byte
		var rest string
		switch in[0] {
		case '\'':
			part, rest, err = patternFile(in, room)
		case '"':
			part, rest, err = patternString(in, room)
		case '%':
			if !withFormats {
				return nil, nil, fmt.Errorf("%q: formats (%%o) are for verify_pattern only", in)
			}
			if !strings.HasPrefix(in, "%o") {
				return nil, nil, fmt.Errorf("%q: unknown format (allowed: %%o, the I/O's offset)", in)
			}
			if len(formats) == maxPatternFormats {
				return nil, nil, fmt.Errorf("%q: more than %d formats", s, maxPatternFormats)
			}
			if room < offsetFormatLen {
				return nil, nil, fmt.Errorf("%q: the pattern fills more than %d bytes", s, maxPatternLen)
			}
			formats = append(formats, len(pattern))
			part, rest = make([]byte, offsetFormatLen), in[2:]
		default:
			part, rest, err = patternNumber(in, room)
		}
		if err != nil {
			return nil, nil, err
		}
		if len(part) == 0 {
			return nil, nil, fmt.Errorf("%q: a part of the pattern fills no bytes", in[:len(in)-len(rest)])
		}
		pattern, in = append(pattern, part...), rest
	}
	return pattern, formats, nil
}

// patternString reads a "string" part, as fio's parse_string.
func patternString(in string, room int) (part []byte, rest string, err error) {
	end := strings.IndexByte(in[1:], '"')
	if end < 0 {
		return nil, "", fmt.Errorf("%q: unterminated string", in)
	}
	if end > room {
		return nil, "", fmt.Errorf("%q: the pattern fills more than %d bytes", in, maxPatternLen)
	}
	return []byte(in[1 : 1+end]), in[end+2:], nil
}

// patternFile reads a 'file' part, as fio's parse_file: up to room bytes
// from the start of the file.
func patternFile(in string, room int) (part []byte, rest string, err error) {
	end := strings.IndexByte(in[1:], '\'')
	if end < 0 {
		return nil, "", fmt.Errorf("%q: unterminated file name", in)
	}
	name := in[1 : 1+end]
	f, err := os.Open(name)
	if err != nil {
		return nil, "", fmt.Errorf("pattern file: %w", err)
	}
	defer f.Close()
	buf := make([]byte, room)
	n, err := f.Read(buf)
	if err != nil && n == 0 {
		return nil, "", fmt.Errorf("pattern file %s: %w", name, err)
	}
	return buf[:n], in[end+2:], nil
}

// patternNumber reads a hex or decimal part, as fio's parse_number.
func patternNumber(in string, room int) (part []byte, rest string, err error) {
	if len(in) > 2 && in[0] == '0' && (in[1] == 'x' || in[1] == 'X') && isDigitIn(in[2], 16) {
		digits := in[2:]
		n := 0
		for n < len(digits) && isDigitIn(digits[n], 16) {
			n++
		}
		// 0xff0x14: the run's last 0 begins the next part.
		if n < len(digits) && digits[n-1] == '0' && (digits[n] == 'x' || digits[n] == 'X') {
			n--
		}
		hex := digits[:n]
		if len(hex)%2 == 1 {
			hex = "0" + hex
		}
		if len(hex)/2 > room {
			return nil, "", fmt.Errorf("%q: the pattern fills more than %d bytes", in, maxPatternLen)
		}
		for i := 0; i < len(hex); i += 2 {
			b, _ := strconv.ParseUint(hex[i:i+2], 16, 8)
			part = append(part, byte(b))
		}
		return part, digits[n:], nil
	}
	// A decimal number, read by strtol up to the next "0x" if any.
	limit := len(in)
	if i := strings.Index(strings.ToLower(in), "0x"); i > 0 {
		limit = i
	}
	v, used, ok := strtol(in[:limit])
	if !ok {
		return nil, "", fmt.Errorf("%q: want a \"string\", a 'file', 0x hex bytes or a decimal number", in)
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return nil, "", fmt.Errorf("%q: decimal number out of the int range", in[:used])
	}
	if v == 0 {
		return []byte{0}, in[used:], nil
	}
	for u := uint32(v); u != 0; u >>= 8 {
		if len(part) == room {
			return nil, "", fmt.Errorf("%q: the pattern fills more than %d bytes", in, maxPatternLen)
		}
		part = append(part, byte(u))
	}
	return part, in[used:], nil
}

// strtol reads a base-10 number at the start of s as C's strtol: leading
// white space, an optional sign, digits; used is how many bytes it took,
// and ok is false when there were no digits. A value past the int64 range
// saturates, as strtol's LONG_MAX.
func strtol(s string) (v int64, used int, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if v < math.MaxInt64/10 {
			v = v*10 + int64(s[i]-'0')
		} else {
			v = math.MaxInt64
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}
