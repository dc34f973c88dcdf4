package verifylog

import (
	"fmt"

	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/jobfile"
)

// NewVerifier returns the verifier of job j (index: its place in the run,
// from 0), or nil without verify=, and refuses what cannot be verified: an
// unknown or unimplemented type, an engine that moves no data, and blocks
// too small for the header.
func NewVerifier(j *jobfile.Job, index int) (*verify.Verifier, error) {
	kind, err := verify.ParseKind(j.Verify)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.Name, err)
	}
	if kind == verify.KindNone {
		return nil, nil
	}
	if j.Engine().Diskless && kind != verify.KindNull {
		return nil, fmt.Errorf("%s: verify=%s needs an engine that moves data; ioengine=%s does not", j.Name, j.Verify, j.IOEngine)
	}
	if hl := uint64(verify.HeaderLen(kind)); hl > 0 {
		if m := j.MinBS(); m < hl {
			return nil, fmt.Errorf("%s: verify=%s needs blocks of at least %d bytes for its header; the smallest block size is %d", j.Name, kind, hl, m)
		}
	}
	iv := j.VerifyInterval
	if uint64(iv) == j.BSMin(jobfile.DirWrite) && j.BSMin(jobfile.DirWrite) == j.BSMax(jobfile.DirWrite) {
		iv = 0 // one header per block, as without verify_interval
	}
	v, err := verify.New(kind, j.VerifyPattern, iv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.Name, err)
	}
	v.Formats, v.PatternInterval = j.VerifyPatternFormats, j.VerifyPatternInterval
	if off := j.VerifyOffset; off > 0 && kind != verify.KindPattern {
		hl := verify.HeaderLen(kind)
		block := int(j.MinBS())
		if iv > 0 && iv < block {
			block = iv
		}
		switch {
		case off < hl:
			// fio 3.33's memswp then moves part of the data into the
			// header's place and every block fails its checksum (EILSEQ).
			return nil, fmt.Errorf("%s: verify_offset=%d lies inside the %d-byte verify=%s header; use at least %d", j.Name, off, hl, kind, hl)
		case off+hl > block:
			// fio 3.33 would swap the header past the end of the block.
			return nil, fmt.Errorf("%s: verify_offset=%d and the %d-byte verify=%s header do not fit a %d-byte verify block", j.Name, off, hl, kind, block)
		}
		v.Offset = off
	}
	v.Thread = uint16(index)
	return v, nil
}
