package verify

import (
	"encoding/binary"
	"hash/crc32"
)

// magic is fio's FIO_HDR_MAGIC.
const magic = 0xacca

// Byte offsets of the fields of fio 3.33's struct verify_header. fio writes
// them in host order; gofio writes little-endian, which is the same on the
// machines fio and gofio run on (x86-64, arm64).
const (
	offMagic    = 0  // uint16
	offType     = 2  // uint16
	offLen      = 4  // uint32
	offSeed     = 8  // uint64
	offOffset   = 16 // uint64
	offTimeSec  = 24 // uint32
	offTimeUsec = 28 // uint32
	offThread   = 32 // uint16
	offNumberIO = 34 // uint16
	offCRC      = 36 // uint32: crc32c of bytes [0, 36)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fioCRC32C is fio's crc32c: the Castagnoli CRC with ~0 as the initial value
// and no final inversion (crc/crc32c.c), which is the complement of the
// standard one.
func fioCRC32C(p []byte) uint32 {
	return ^crc32.Checksum(p, castagnoli)
}

// Header is the decoded verify header of one block.
type Header struct {
	Magic    uint16
	Kind     Kind
	Len      uint32
	Seed     uint64
	Offset   uint64
	TimeSec  uint32
	TimeUsec uint32
	Thread   uint16
	NumberIO uint16
	CRC      uint32
}

// ReadHeader decodes the header at the start of block. ok is false when the
// block is shorter than a header or its magic is not fio's.
func ReadHeader(block []byte) (h Header, ok bool) {
	if len(block) < HeaderSize {
		return Header{}, false
	}
	le := binary.LittleEndian
	h = Header{
		Magic:    le.Uint16(block[offMagic:]),
		Kind:     Kind(le.Uint16(block[offType:])),
		Len:      le.Uint32(block[offLen:]),
		Seed:     le.Uint64(block[offSeed:]),
		Offset:   le.Uint64(block[offOffset:]),
		TimeSec:  le.Uint32(block[offTimeSec:]),
		TimeUsec: le.Uint32(block[offTimeUsec:]),
		Thread:   le.Uint16(block[offThread:]),
		NumberIO: le.Uint16(block[offNumberIO:]),
		CRC:      le.Uint32(block[offCRC:]),
	}
	return h, h.Magic == magic
}

// putHeader writes h (except CRC, which it computes) at the start of block.
func putHeader(block []byte, h *Header) {
	le := binary.LittleEndian
	le.PutUint16(block[offMagic:], magic)
	le.PutUint16(block[offType:], uint16(h.Kind))
	le.PutUint32(block[offLen:], h.Len)
	le.PutUint64(block[offSeed:], h.Seed)
	le.PutUint64(block[offOffset:], h.Offset)
	le.PutUint32(block[offTimeSec:], h.TimeSec)
	le.PutUint32(block[offTimeUsec:], h.TimeUsec)
	le.PutUint16(block[offThread:], h.Thread)
	le.PutUint16(block[offNumberIO:], h.NumberIO)
	le.PutUint32(block[offCRC:], fioCRC32C(block[:offCRC]))
}
