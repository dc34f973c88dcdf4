// Package verify writes and checks fio-style verification blocks. Each
// block starts with fio 3.33's 40-byte verify_header (magic 0xacca, verify
// type, block length, random seed, file offset, time, thread, numberio and a
// crc32c of the header itself), followed by the checksum of the rest of the
// block, followed by data (random from the seed, or verify_pattern tiled).
// verify=pattern writes the pattern alone with no header, as fio 3.33 does.
//
// The layout, type numbers and crc32c/md5 checksums are those fio 3.33
// writes, so gofio checks blocks fio wrote with verify=crc32c, crc32c-intel,
// md5 and meta, and fio checks the headers and checksums gofio writes.
// Fill and Check do not allocate.
package verify

import (
	"fmt"
	"strings"
)

// Kind is a verify type; the values are fio 3.33's (verify.h), and are
// written into each block's header.
type Kind uint16

// The verify types gofio implements.
const (
	KindNone        Kind = 0  // verify=0: no verification
	KindMeta        Kind = 1  // verify=meta: header only (fio's VERIFY_HDR_ONLY)
	KindMD5         Kind = 2  // verify=md5
	KindCRC32C      Kind = 5  // verify=crc32c
	KindCRC32CIntel Kind = 6  // verify=crc32c-intel: same sum, own type number
	KindSHA256      Kind = 9  // verify=sha256
	KindPattern     Kind = 17 // verify=pattern: verify_pattern only, no header
	KindNull        Kind = 19 // verify=null: fill as usual, pretend to verify
)

// HeaderSize is the size of fio's struct verify_header.
const HeaderSize = 40

// names maps every verify= value fio 3.33 accepts to its kind; a kind of
// kindUnsupported marks fio types gofio does not implement.
const kindUnsupported Kind = 0xffff

var names = []struct {
	name string
	kind Kind
}{
	{"0", KindNone},
	{"md5", KindMD5},
	{"crc64", kindUnsupported},
	{"crc32", kindUnsupported},
	{"crc32c-intel", KindCRC32CIntel},
	{"crc32c", KindCRC32C},
	{"crc16", kindUnsupported},
	{"crc7", kindUnsupported},
	{"sha1", kindUnsupported},
	{"sha256", KindSHA256},
	{"sha512", kindUnsupported},
	{"sha3-224", kindUnsupported},
	{"sha3-256", kindUnsupported},
	{"sha3-384", kindUnsupported},
	{"sha3-512", kindUnsupported},
	{"xxhash", kindUnsupported},
	{"meta", KindMeta},
	{"pattern", KindPattern},
	{"null", KindNull},
}

// supported lists the names ParseKind accepts, for error messages.
const supported = "0, crc32c, crc32c-intel, md5, sha256, meta, pattern, null"

// ParseKind maps a verify= value to a Kind. Like fio it matches the part
// before the first ':' or ',' exactly. An empty value is KindNone. A
// type fio has but gofio does not implement (crc64, sha512, xxhash, ...)
// gets an error that says so and lists what is supported.
func ParseKind(name string) (Kind, error) {
	if i := strings.IndexAny(name, ":,"); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return KindNone, nil
	}
	for _, n := range names {
		if n.name == name {
			if n.kind == kindUnsupported {
				return 0, fmt.Errorf("verify=%s is a fio verify type gofio does not implement (supported: %s)", name, supported)
			}
			return n.kind, nil
		}
	}
	return 0, fmt.Errorf("verify=%s: unknown verify type (allowed: %s)", name, supported)
}

// String returns the verify= name of k.
func (k Kind) String() string {
	for _, n := range names {
		if n.kind == k {
			if k == KindNone {
				return "none"
			}
			return n.name
		}
	}
	return fmt.Sprintf("verify-type-%d", uint16(k))
}

// sumSize is the size of fio's checksum header (struct vhdr_*) for k.
func (k Kind) sumSize() int {
	switch k {
	case KindMD5:
		return 16
	case KindCRC32C, KindCRC32CIntel:
		return 4
	case KindSHA256:
		return 64 // fio's vhdr_sha256 holds 64 bytes; gofio uses the first 32
	}
	return 0
}

// hasHeader reports whether blocks of kind k carry a verify header.
func (k Kind) hasHeader() bool {
	return k != KindNone && k != KindPattern && k != KindNull
}

// HeaderLen is the number of bytes at the start of each block that kind k
// reserves for the header and checksum: the smallest block (bs or
// verify_interval) it can verify. It is 0 for kinds without a header.
func HeaderLen(k Kind) int {
	if !k.hasHeader() {
		return 0
	}
	return HeaderSize + k.sumSize()
}

// sameKind treats crc32c and crc32c-intel as one type when comparing a
// block's header with the job's verify type, as they share the checksum.
func sameKind(a, b Kind) bool {
	crc := func(k Kind) bool { return k == KindCRC32C || k == KindCRC32CIntel }
	return a == b || (crc(a) && crc(b))
}
