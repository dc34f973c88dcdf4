package verify

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrMismatch is matched (errors.Is) by every *Mismatch.
var ErrMismatch = errors.New("verify mismatch")

// Mismatch describes the first bad block Check found.
type Mismatch struct {
	File        string // set by the caller, which knows the file; "" to omit
	Offset      uint64 // file offset of the failure: the bad byte for pattern, else the block
	BlockOffset uint64 // file offset of the verify block (bs or verify_interval) that failed
	BlockLen    int    // length of that block
	Kind        Kind   // the job's verify type
	What        string // what disagreed: "magic", "header length", "header offset", "header crc32c", "verify type", "crc32c", "md5", "sha256", "pattern"
	Expected    string // expected value, hex
	Got         string // value found, hex
}

// Error names the file, offset, what was expected and what was found.
func (m *Mismatch) Error() string {
	file := ""
	if m.File != "" {
		file = " in file " + m.File
	}
	return fmt.Sprintf("verify: %s mismatch%s at offset %d (verify=%s block at offset %d, length %d): expected %s, got %s",
		m.What, file, m.Offset, m.Kind, m.BlockOffset, m.BlockLen, m.Expected, m.Got)
}

// Is makes errors.Is(err, ErrMismatch) true.
func (m *Mismatch) Is(target error) bool { return target == ErrMismatch }

// hexBytes formats b as 0x followed by lowercase hex digits.
func hexBytes(b []byte) string { return "0x" + hex.EncodeToString(b) }

// hexUint formats v as 0x-prefixed hex.
func hexUint(v uint64) string { return fmt.Sprintf("0x%x", v) }
