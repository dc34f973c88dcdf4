package cmd

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dirState is what a directory holds: every path under it, each regular
// file with its size and content hash, one line each, sorted.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %d %x", rel, len(b), sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// randomFile writes n random bytes to dir/name.
func randomFile(t *testing.T, dir, name string, n int) {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readOnlyRefusal is fio 3.33's line, on stderr, for a file --readonly
// does not lay out.
const readOnlyRefusal = "fio: refusing extend of file due to read-only\n"

// TestReadOnlyNeverWrites runs --readonly jobs as fio 3.33 runs them, each
// in a scratch directory whose files and hashes must be the same after:
// a file shorter than the job's region keeps its size and bytes (fio's
// refusal on stderr, then the job reads what is there and fails at its
// end with EIO on a synchronous engine, exit 1, or counts the reads past
// it as 0 bytes on io_uring, exit 0, as fio's do), a missing file is not
// created (the open fails with ENOENT, exit 1), nor its directory, nor a
// create_on_open file; create_only says so and exits 0; unlink=1 removes
// nothing. Jobs that would write, create or remove files are refused
// before anything runs (exit 1).
func TestReadOnlyNeverWrites(t *testing.T) {
	const region = "--size=256k"
	tests := []struct {
		name    string
		before  map[string]int // files made first, random bytes
		args    []string
		code    int
		refusal bool   // fio's refusal line on stderr
		stderr  string // more that stderr holds
	}{
		// A file half the region: psync reads 128 KiB, then EIO.
		{"smaller-psync", map[string]int{"f": 128 << 10}, []string{"--filename=f", "--rw=read"}, 1, true, "Input/output error"},
		// io_uring counts the reads past the end as 0 bytes, as fio.
		{"smaller-io_uring", map[string]int{"f": 128 << 10}, []string{"--filename=f", "--rw=randread", "--ioengine=io_uring", "--iodepth=8"}, 0, true, ""},
		{"smaller-fallocate", map[string]int{"f": 128 << 10}, []string{"--filename=f", "--rw=read", "--fallocate=truncate"}, 1, true, ""},
		{"missing", nil, []string{"--filename=f", "--rw=read"}, 1, true, "no such file or directory"},
		// fio creates the directory, gofio does not.
		{"missing-dir", nil, []string{"--filename=d/f", "--rw=read"}, 1, true, "no such file or directory"},
		// fio's create_on_open makes an empty file; gofio makes none.
		{"create-on-open", nil, []string{"--filename=f", "--rw=read", "--create_on_open=1"}, 1, false, "no such file or directory"},
		{"create-only", map[string]int{"f": 128 << 10}, []string{"--filename=f", "--rw=read", "--create_only=1"}, 0, true, ""},
		// fio removes the file; gofio removes only what it created.
		{"unlink", map[string]int{"f": 256 << 10}, []string{"--filename=f", "--rw=read", "--unlink=1"}, 0, false, ""},
		{"write", map[string]int{"f": 256 << 10}, []string{"--filename=f", "--rw=randwrite"}, ExitBadInput, false, "has write or trim bit set, but gofio is in read-only mode"},
		{"trim", map[string]int{"f": 256 << 10}, []string{"--filename=f", "--rw=trim"}, ExitBadInput, false, "has write or trim bit set"},
		{"filedelete", map[string]int{"j.0.0": 4 << 10}, []string{"--ioengine=filedelete", "--rw=read", "--filesize=4k"}, ExitBadInput, false, "ioengine=filedelete, which removes its files"},
		{"filecreate", nil, []string{"--ioengine=filecreate", "--rw=read", "--filesize=4k"}, ExitBadInput, false, "ioengine=filecreate, which creates its files"},
		{"falloc", map[string]int{"f": 128 << 10}, []string{"--filename=f", "--ioengine=falloc", "--rw=read"}, ExitBadInput, false, "ioengine=falloc"},
		{"e4defrag", map[string]int{"f": 256 << 10}, []string{"--filename=f", "--ioengine=e4defrag", "--donorname=d", "--rw=read"}, ExitBadInput, false, "ioengine=e4defrag"},
		{"unlink-each-loop", map[string]int{"f": 256 << 10}, []string{"--filename=f", "--rw=read", "--loops=2", "--unlink_each_loop=1"}, ExitBadInput, false, "unlink_each_loop=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := scratchDir(t)
			for name, n := range tt.before {
				randomFile(t, dir, name, n)
			}
			before := dirState(t, dir)
			args := append([]string{"--readonly", "--name=j", "--directory=" + dir, "--bs=4k", region}, tt.args...)
			code, _, stderr := runCmd(t, args...)
			if code != tt.code {
				t.Errorf("gofio %s: exit %d, want %d\nstderr: %s", strings.Join(args, " "), code, tt.code, stderr)
			}
			if got := strings.Contains(stderr, readOnlyRefusal); got != tt.refusal {
				t.Errorf("stderr has fio's %q: %v, want %v\nstderr: %s", strings.TrimSpace(readOnlyRefusal), got, tt.refusal, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if after := dirState(t, dir); after != before {
				t.Errorf("--readonly changed the directory:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}
