package loopdev

import (
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// part is one partition: byte offset and length.
type part struct{ start, length int64 }

// layout places partitions back to back from 1 MiB, each rounded down to
// whole MiB.
func layout(diskSize int64, sizes []int64) ([]part, error) {
	const mib = 1 << 20
	if len(sizes) > 4 {
		return nil, fmt.Errorf("mbr: %d partitions, at most 4 primary", len(sizes))
	}
	var out []part
	start := int64(mib)
	for i, sz := range sizes {
		sz = sz / mib * mib
		if sz <= 0 || start+sz > diskSize {
			return nil, fmt.Errorf("mbr: partition %d (%d bytes at %d) does not fit in %d bytes", i+1, sz, start, diskSize)
		}
		out = append(out, part{start, sz})
		start += sz
	}
	return out, nil
}

// writeMBR writes a DOS partition table with one primary Linux (0x83)
// partition per entry into sector 0 of f, so tests need neither sfdisk nor
// parted.
func writeMBR(f *os.File, parts []part) error {
	const sector = 512
	var mbr [sector]byte
	binary.LittleEndian.PutUint32(mbr[440:], 0x6f666f67) // disk identifier "gofo"
	for i, p := range parts {
		e := mbr[446+16*i : 446+16*(i+1)]
		e[0] = 0x00                         // not bootable
		e[1], e[2], e[3] = 0xfe, 0xff, 0xff // CHS start: use LBA
		e[4] = 0x83                         // Linux
		e[5], e[6], e[7] = 0xfe, 0xff, 0xff // CHS end: use LBA
		binary.LittleEndian.PutUint32(e[8:], uint32(p.start/sector))
		binary.LittleEndian.PutUint32(e[12:], uint32(p.length/sector))
	}
	mbr[510], mbr[511] = 0x55, 0xaa
	if _, err := f.WriteAt(mbr[:], 0); err != nil {
		return fmt.Errorf("mbr: write: %w", err)
	}
	return nil
}

// addPartitions tells the kernel about parts with BLKPG_ADD_PARTITION, for
// kernels built without the DOS partition parser (the partition scan then
// finds nothing). Partitions the scan already created are left alone.
func addPartitions(dev *os.File, name string, parts []part) error {
	for i, p := range parts {
		pno := i + 1
		if _, err := os.Stat(fmt.Sprintf("/sys/block/%s/%sp%d", name, name, pno)); err == nil {
			continue
		}
		bp := unix.BlkpgPartition{Start: p.start, Length: p.length, Pno: int32(pno)}
		arg := unix.BlkpgIoctlArg{
			Op:      unix.BLKPG_ADD_PARTITION,
			Datalen: int32(unsafe.Sizeof(bp)),
			Data:    (*byte)(unsafe.Pointer(&bp)),
		}
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, dev.Fd(), unix.BLKPG, uintptr(unsafe.Pointer(&arg)))
		if errno != 0 {
			return fmt.Errorf("BLKPG_ADD_PARTITION %d: %w", pno, errno)
		}
	}
	return nil
}
