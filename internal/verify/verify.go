package verify

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Verifier fills and checks blocks for one job.
type Verifier struct {
	// Kind is the verify type.
	Kind Kind
	// Pattern is verify_pattern. With KindPattern it is the whole content
	// of each block; with a checksum kind it replaces the random data and
	// is checked as well as the checksum, as fio does.
	Pattern []byte
	// Interval is verify_interval: the size of each header-carrying piece
	// of a buffer. 0, or more than the buffer, means one piece per buffer
	// (fio's get_hdr_inc).
	Interval int
	// Thread is written into each header (fio's thread number).
	Thread uint16
	// Formats holds where verify_pattern's %o formats lie in Pattern: each
	// takes the 8 bytes there (fewer at the pattern's end) for the offset
	// of the I/O, little-endian, as fio's paste_blockoff; the I/O's whole
	// buffer repeats that one pasted pattern.
	Formats []int
	// PatternInterval is fio 3.40's verify_pattern_interval: the pattern
	// starts afresh every this many bytes of a buffer, counted from its
	// start, its formats filled with that piece's own offset. 0 lays one
	// pattern, with the I/O's offset, over the whole buffer.
	PatternInterval int
	// pasted is the pattern with the formats filled (Formats only).
	pasted []byte
	// Offset is verify_offset: the header (with its checksum) is swapped
	// with the bytes Offset into each verify block after filling, and
	// swapped back before checking, as fio's memswp does. 0 keeps it at
	// the start. Offset plus the header length must fit every block.
	Offset int
}

// New returns a Verifier and rejects combinations fio cannot verify:
// verify=pattern without verify_pattern, and a verify_interval too small
// to hold the header and checksum.
func New(kind Kind, pattern []byte, interval int) (*Verifier, error) {
	if kind == KindPattern && len(pattern) == 0 {
		return nil, fmt.Errorf("verify=pattern needs verify_pattern")
	}
	if interval < 0 {
		return nil, fmt.Errorf("verify_interval=%d: must not be negative", interval)
	}
	if hl := HeaderLen(kind); interval > 0 && interval < hl {
		return nil, fmt.Errorf("verify_interval=%d is smaller than the %d-byte verify=%s header", interval, hl, kind)
	}
	return &Verifier{Kind: kind, Pattern: pattern, Interval: interval}, nil
}

// Fill is (&Verifier{Kind: kind}).Fill(buf, offset, seed, 0): random data
// from seed, then a header and checksum at the start of buf. With
// KindPattern and no pattern it writes only the random data, as fio 3.33
// does for verify=pattern without verify_pattern.
func Fill(buf []byte, offset uint64, kind Kind, seed uint64) {
	v := Verifier{Kind: kind}
	v.Fill(buf, offset, seed, 0)
}

// Check is (&Verifier{Kind: kind}).Check(buf, offset). With KindPattern it
// returns an error, as there is no pattern to compare with; use New.
func Check(buf []byte, offset uint64, kind Kind) error {
	v := Verifier{Kind: kind}
	return v.Check(buf, offset)
}

// blockLen returns the length of the verify block starting at pos.
func (v *Verifier) blockLen(n, pos int) int {
	inc := n
	if v.Interval > 0 && v.Interval <= n {
		inc = v.Interval
	}
	if pos+inc > n {
		return n - pos
	}
	return inc
}

// Fill prepares buf, about to be written at file offset offset: data
// (verify_pattern tiled from the start of buf, else random bytes from
// seed), then, for each verify block, the header (seed, offset, numberio)
// and the checksum of the block after the header. A block shorter than the
// header keeps only its data. Fill does not allocate.
func (v *Verifier) Fill(buf []byte, offset, seed uint64, numberio uint16) {
	if len(v.Pattern) > 0 {
		for seg := 0; seg < len(buf); seg += v.segment(len(buf)) {
			tile(buf[seg:min(seg+v.segment(len(buf)), len(buf))], v.pattern(offset+uint64(seg)))
		}
	} else {
		fillRandom(buf, seed)
	}
	if !v.Kind.hasHeader() {
		return
	}
	hl := HeaderLen(v.Kind)
	for pos := 0; pos < len(buf); {
		n := v.blockLen(len(buf), pos)
		block := buf[pos : pos+n]
		if n >= hl {
			v.sum(block[HeaderSize:hl], block[hl:])
			h := Header{Kind: v.Kind, Len: uint32(n), Seed: seed, Offset: offset + uint64(pos), Thread: v.Thread, NumberIO: numberio}
			putHeader(block, &h)
			if v.Offset > 0 {
				swapHeader(block, v.Offset, hl)
			}
		}
		pos += n
	}
}

// swapHeader swaps the hl bytes at the start of block with the hl bytes
// at off, as fio's memswp: the first copy is saved, the second moved over
// it (the two may overlap), then the saved copy written at off.
func swapHeader(block []byte, off, hl int) {
	var save [HeaderSize + 64]byte
	if off+hl > len(block) || hl > len(save) {
		return
	}
	copy(save[:hl], block[:hl])
	copy(block[:hl], block[off:off+hl])
	copy(block[off:off+hl], save[:hl])
}

// sum writes the checksum of data into dst (len(dst) == sumSize).
func (v *Verifier) sum(dst, data []byte) {
	switch v.Kind {
	case KindCRC32C, KindCRC32CIntel:
		binary.LittleEndian.PutUint32(dst, fioCRC32C(data))
	case KindMD5:
		s := md5.Sum(data)
		copy(dst, s[:])
	case KindSHA256:
		s := sha256.Sum256(data)
		n := copy(dst, s[:])
		clear(dst[n:])
	}
}

// Check verifies buf, just read from file offset offset, and returns a
// *Mismatch for the first bad block: a header that is not fio's or not for
// this offset, length or type, a header crc, checksum or pattern that does
// not match. A clean buffer costs no allocation.
func (v *Verifier) Check(buf []byte, offset uint64) error {
	switch v.Kind {
	case KindNone, KindNull:
		return nil
	case KindPattern:
		if len(v.Pattern) == 0 {
			return fmt.Errorf("verify=pattern needs verify_pattern")
		}
		return v.checkPattern(offset, 0, buf, len(buf), offset)
	}
	hl := HeaderLen(v.Kind)
	for pos := 0; pos < len(buf); {
		n := v.blockLen(len(buf), pos)
		if err := v.checkBlock(buf, pos, n, hl, offset); err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// CheckZeroes checks that buf, read back from offset after the block was
// trimmed, holds only zeroes, as fio's verify_trimmed_io_u does with
// trim_verify_zero=1. With verify=null (and without verify) nothing is
// checked, as in fio. The mismatch names the first byte that is not zero.
func (v *Verifier) CheckZeroes(buf []byte, offset uint64) error {
	if v.Kind == KindNone || v.Kind == KindNull {
		return nil
	}
	for i, b := range buf {
		if b != 0 {
			return &Mismatch{Offset: offset + uint64(i), BlockOffset: offset, BlockLen: len(buf), Kind: v.Kind,
				What: "trimmed block", Expected: "0x00", Got: hexBytes([]byte{b})}
		}
	}
	return nil
}

// checkBlock checks the verify block buf[pos:pos+n].
func (v *Verifier) checkBlock(buf []byte, pos, n, hl int, offset uint64) error {
	block := buf[pos : pos+n]
	at := offset + uint64(pos)
	if n < hl {
		return fmt.Errorf("verify: block of %d bytes at offset %d is smaller than the %d-byte verify=%s header", n, at, hl, v.Kind)
	}
	if v.Offset > 0 {
		if v.Offset+hl > n {
			return fmt.Errorf("verify: verify_offset=%d and the %d-byte verify=%s header do not fit the %d-byte block at offset %d", v.Offset, hl, v.Kind, n, at)
		}
		swapHeader(block, v.Offset, hl)
	}
	h, ok := ReadHeader(block)
	switch {
	case !ok:
		return v.mismatch(at, n, "magic", hexUint(magic), hexUint(uint64(h.Magic)))
	case h.Len != uint32(n):
		return v.mismatch(at, n, "header length", fmt.Sprint(n), fmt.Sprint(h.Len))
	case h.Offset != at:
		return v.mismatch(at, n, "header offset", fmt.Sprint(at), fmt.Sprint(h.Offset))
	case !sameKind(h.Kind, v.Kind):
		return v.mismatch(at, n, "verify type", v.Kind.String(), h.Kind.String())
	}
	if c := fioCRC32C(block[:offCRC]); c != h.CRC {
		return v.mismatch(at, n, "header crc32c", hexUint(uint64(h.CRC)), hexUint(uint64(c)))
	}
	stored := block[HeaderSize:hl]
	var calc [64]byte
	got := calc[:len(stored)]
	v.sum(got, block[hl:])
	if !bytes.Equal(stored, got) {
		name := v.Kind.String()
		if v.Kind == KindCRC32CIntel {
			name = "crc32c"
		}
		if v.Kind == KindSHA256 {
			stored, got = stored[:sha256.Size], got[:sha256.Size]
		}
		return v.mismatch(at, n, name, hexBytes(stored), hexBytes(got))
	}
	if len(v.Pattern) > 0 {
		return v.checkPattern(offset, pos+hl, block[hl:], n, at)
	}
	return nil
}

// mismatch builds the error for a bad header or checksum of the block at
// offset at, n bytes long.
func (v *Verifier) mismatch(at uint64, n int, what, want, got string) error {
	return &Mismatch{Offset: at, BlockOffset: at, BlockLen: n, Kind: v.Kind, What: what, Expected: want, Got: got}
}

// pattern returns the verify pattern of an I/O at offset: Pattern, with
// the offset pasted where Formats say. The pasted copy is the Verifier's
// own, reused by the next call.
func (v *Verifier) pattern(offset uint64) []byte {
	if len(v.Formats) == 0 {
		return v.Pattern
	}
	if len(v.pasted) != len(v.Pattern) {
		v.pasted = make([]byte, len(v.Pattern))
	}
	copy(v.pasted, v.Pattern)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], offset)
	for _, at := range v.Formats {
		if at < len(v.pasted) {
			copy(v.pasted[at:], le[:])
		}
	}
	return v.pasted
}

// segment returns the length of the pieces a buffer of n bytes lays its
// pattern in: PatternInterval, or the whole buffer.
func (v *Verifier) segment(n int) int {
	if v.PatternInterval > 0 && v.PatternInterval < n {
		return v.PatternInterval
	}
	return max(n, 1)
}

// checkPattern compares data, which starts at index from of the buffer of
// the I/O at offset, with the pattern as Fill laid it: tiled from the
// start of the buffer, or from the start of each PatternInterval piece.
func (v *Verifier) checkPattern(offset uint64, from int, data []byte, blockLen int, blockOff uint64) error {
	seg := v.segment(from + len(data))
	for i := 0; i < len(data); {
		start := (from + i) / seg * seg // the piece this byte lies in
		p := v.pattern(offset + uint64(start))
		end := min(len(data), start+seg-from)
		for mod := (from + i - start) % len(p); i < end; mod = 0 {
			// Compare a run up to the end of the pattern in one go.
			run := min(len(p)-mod, end-i)
			if !bytes.Equal(data[i:i+run], p[mod:mod+run]) {
				for j := 0; j < run; j++ {
					if data[i+j] != p[mod+j] {
						return &Mismatch{
							Offset: offset + uint64(from+i+j), BlockOffset: blockOff, BlockLen: blockLen,
							Kind: v.Kind, What: "pattern",
							Expected: hexBytes(p[mod+j : mod+j+1]), Got: hexBytes(data[i+j : i+j+1]),
						}
					}
				}
			}
			i += run
		}
	}
	return nil
}

// tile fills buf with pattern repeated from its first byte.
func tile(buf, pattern []byte) {
	if len(buf) == 0 {
		return
	}
	n := copy(buf, pattern)
	for n < len(buf) {
		n += copy(buf[n:], buf[:n])
	}
}

// fillRandom fills buf with splitmix64 output seeded by seed: fast,
// reproducible from the seed kept in the header, and incompressible.
func fillRandom(buf []byte, seed uint64) {
	s := seed
	next := func() uint64 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], next())
	}
	if i < len(buf) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], next())
		copy(buf[i:], tail[:])
	}
}
