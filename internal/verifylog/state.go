package verifylog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofio/gofio/internal/iogen"
	"golang.org/x/sys/unix"
)

// verify_only, verify_state_save and verify_state_load:
//
//   - verify_only=1 on a writing job with verify= issues no write; with
//     do_verify=1 (fio's default; 0 makes the job do nothing, as in fio) it
//     replays the job's offset generator (the same seed, so the same
//     blocks in the same order, as fio's verify_only does) for the bytes
//     the write phase would have issued, and reads every block that
//     phase would have written back through the verify phase. A block
//     that was never written, or was torn, fails its check and is named;
//     with continue_on_error=verify every such block is counted.
//   - verify_state_save=1 keeps a state file, <aux-path>/local-NAME-N-
//     verify.state as fio names it, with one byte per smallest write
//     block of every file, set when a write of that block completed. The
//     file is a shared mapping written on every completion, so it holds
//     exactly the completed writes even when the process is killed with
//     SIGKILL (fio saves its state only when the job ends or on a signal
//     it catches). The format is gofio's own.
//   - verify_state_load=1 with verify_only=1 checks exactly the blocks the
//     state file marks as completed and skips the others, saying how many.

// vstateMagic starts a gofio verify state file.
var vstateMagic = [16]byte{'g', 'o', 'f', 'i', 'o', '-', 'v', 's', 't', 'a', 't', 'e', '-', 'v', '1', '\n'}

// vstateHeader is the file's fixed header, little-endian, followed by
// Files uint64 block counts and then one byte per block, file after file.
type vstateHeader struct {
	Magic [16]byte
	Block uint64 // bytes per state byte: the job's smallest write block
	Files uint64
}

// State is a job's mapped state file.
type State struct {
	Path  string
	block uint64
	maps  [][]byte // per file: one byte per block
	mem   []byte   // the whole mapping
}

// StatePath is fio's name for job index's state file:
// local-NAME-INDEX-verify.state, '/' in the name turned into '.', under
// aux (the working directory when empty).
func StatePath(aux, name string, index int) string {
	return filepath.Join(aux, fmt.Sprintf("local-%s-%d-verify.state", strings.ReplaceAll(name, "/", "."), index))
}

func vstateLayout(regions []iogen.Region, block uint64) (counts []uint64, hdr int, total int) {
	hdr = binary.Size(vstateHeader{})
	counts = make([]uint64, len(regions))
	total = hdr + 8*len(regions)
	for i, r := range regions {
		counts[i] = (r.End + block - 1) / block
		total += int(counts[i])
	}
	return counts, hdr, total
}

// CreateState creates (truncating) and maps a job's state file with
// nothing marked.
func CreateState(path string, regions []iogen.Region, block uint64) (*State, error) {
	counts, hdr, total := vstateLayout(regions, block)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("verify_state_save: %w", err)
	}
	defer f.Close()
	var head bytes.Buffer
	binary.Write(&head, binary.LittleEndian, vstateHeader{Magic: vstateMagic, Block: block, Files: uint64(len(regions))})
	binary.Write(&head, binary.LittleEndian, counts)
	if _, err := f.Write(head.Bytes()); err != nil {
		return nil, fmt.Errorf("verify_state_save: %s: %w", path, err)
	}
	if err := f.Truncate(int64(total)); err != nil {
		return nil, fmt.Errorf("verify_state_save: %s: %w", path, err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("verify_state_save: map %s: %w", path, err)
	}
	vs := &State{Path: path, block: block, mem: mem}
	off := hdr + 8*len(regions)
	for _, c := range counts {
		vs.maps = append(vs.maps, mem[off:off+int(c)])
		off += int(c)
	}
	return vs, nil
}

// LoadState reads a state file and checks that it belongs to a job
// of this shape.
func LoadState(path string, regions []iogen.Region, block uint64) (*State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("verify_state_load: %w", err)
	}
	counts, hdr, total := vstateLayout(regions, block)
	var h vstateHeader
	if len(b) < hdr || binary.Read(bytes.NewReader(b[:hdr]), binary.LittleEndian, &h) != nil || h.Magic != vstateMagic {
		return nil, fmt.Errorf("verify_state_load: %s is not a gofio verify state file", path)
	}
	if h.Block != block || h.Files != uint64(len(regions)) || len(b) != total {
		return nil, fmt.Errorf("verify_state_load: %s was saved by a job with %d files of %d-byte blocks, not this one (%d files, %d-byte blocks)",
			path, h.Files, h.Block, len(regions), block)
	}
	vs := &State{Path: path, block: block}
	off := hdr + 8*len(regions)
	for i, c := range counts {
		if binary.LittleEndian.Uint64(b[hdr+8*i:]) != c {
			return nil, fmt.Errorf("verify_state_load: %s: file %d has another size", path, i)
		}
		vs.maps = append(vs.maps, b[off:off+int(c)])
		off += int(c)
	}
	return vs, nil
}

// Mark records a completed write of n bytes at off in file.
func (vs *State) Mark(file int32, off uint64, n uint32) {
	m := vs.maps[file]
	for b := off / vs.block; b*vs.block < off+uint64(n) && b < uint64(len(m)); b++ {
		m[b] = 1
	}
}

// Done reports whether every block of [off, off+n) in file was marked.
func (vs *State) Done(file int32, off uint64, n uint32) bool {
	m := vs.maps[file]
	for b := off / vs.block; b*vs.block < off+uint64(n); b++ {
		if b >= uint64(len(m)) || m[b] == 0 {
			return false
		}
	}
	return true
}

// Close unmaps a saved state; the kernel writes it back.
func (vs *State) Close() error {
	if vs == nil || vs.mem == nil {
		return nil
	}
	err := unix.Munmap(vs.mem)
	vs.mem = nil
	return err
}
