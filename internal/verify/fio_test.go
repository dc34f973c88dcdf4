package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fioPath returns the fio binary, skipping the test when it is absent (CI
// installs fio 3.33 through .ci/run).
func fioPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("fio not installed; skipping the on-disk compatibility check")
	}
	return p
}

// TestReadsFioBlocks lets fio write files with verify headers and checks
// that gofio accepts every block, and catches a flipped byte in them.
func TestReadsFioBlocks(t *testing.T) {
	fio := fioPath(t)
	cases := []struct {
		args []string
		v    Verifier
	}{
		{[]string{"--verify=crc32c"}, Verifier{Kind: KindCRC32C}},
		{[]string{"--verify=crc32c-intel"}, Verifier{Kind: KindCRC32CIntel}},
		{[]string{"--verify=md5"}, Verifier{Kind: KindMD5}},
		{[]string{"--verify=meta"}, Verifier{Kind: KindMeta}},
		{[]string{"--verify=crc32c", "--verify_interval=1k"}, Verifier{Kind: KindCRC32C, Interval: 1024}},
		{[]string{"--verify=crc32c", "--verify_pattern=0x11223344"}, Verifier{Kind: KindCRC32C, Pattern: []byte{0x11, 0x22, 0x33, 0x44}}},
		{[]string{"--verify=pattern", "--verify_pattern=0xdeadbeef"}, Verifier{Kind: KindPattern, Pattern: []byte{0xde, 0xad, 0xbe, 0xef}}},
	}
	const bs, size = 4096, 64 << 10
	for _, c := range cases {
		f := filepath.Join(t.TempDir(), "f")
		args := append([]string{"--name=w", "--filename=" + f, "--rw=write", "--bs=4k", "--size=64k", "--do_verify=0", "--verify_state_save=0", "--output=/dev/null"}, c.args...)
		if out, err := exec.Command(fio, args...).CombinedOutput(); err != nil {
			t.Fatalf("fio %v: %v\n%s", args, err, out)
		}
		data, err := os.ReadFile(f)
		if err != nil || len(data) != size {
			t.Fatalf("read %s: %d bytes, %v", f, len(data), err)
		}
		for off := 0; off < size; off += bs {
			if err := c.v.Check(data[off:off+bs], uint64(off)); err != nil {
				t.Fatalf("%v: fio's block at %d rejected: %v", c.args, off, err)
			}
		}
		data[bs+2000] ^= 1
		if c.v.Kind != KindMeta {
			if err := c.v.Check(data[bs:2*bs], bs); err == nil {
				t.Errorf("%v: corrupted fio block accepted", c.args)
			}
		}
	}
}

// TestFioReadsGofioBlocks writes a file with gofio's crc32c and md5 blocks
// and lets fio verify it: clean it passes, with one flipped byte fio
// reports the block.
func TestFioReadsGofioBlocks(t *testing.T) {
	fio := fioPath(t)
	for _, kind := range []Kind{KindCRC32C, KindMD5} {
		const bs, size = 4096, 64 << 10
		buf := make([]byte, size)
		v := &Verifier{Kind: kind, Thread: 1}
		for off := 0; off < size; off += bs {
			v.Fill(buf[off:off+bs], uint64(off), uint64(off)*31+7, uint16(off/bs))
		}
		f := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(f, buf, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"--name=v", "--filename=" + f, "--rw=read", "--bs=4k", "--size=64k", "--verify=" + kind.String(), "--output=/dev/null"}
		if out, err := exec.Command(fio, args...).CombinedOutput(); err != nil {
			t.Fatalf("fio rejects gofio's %s blocks: %v\n%s", kind, err, out)
		}
		buf[3*bs+100] ^= 0x80
		if err := os.WriteFile(f, buf, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(fio, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "verify failed at file "+f+" offset 12288") {
			t.Fatalf("fio on a corrupted %s block: %v\n%s", kind, err, out)
		}
	}
}
