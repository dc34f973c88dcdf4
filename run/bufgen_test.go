package run

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
)

// TestBufferContentIsFios runs 256 KiB sequential write jobs over a file
// of that size and checks the file's SHA-256 against the file fio 3.33
// wrote for the same job (the sums below; each from
// `truncate -s 256k x.dat; fio j.fio` with j.fio the job text): the
// buffer generator, compression, dedupe and the working set are fio's to
// the byte.
func TestBufferContentIsFios(t *testing.T) {
	for _, c := range []struct{ opts, sum string }{
		{"buffer_compress_percentage=50\ndedupe_percentage=30", "9a06acb484ef35190a2c920590a0ed42d036223ac6af48e56c5b7fb2b083e861"},
		{"dedupe_percentage=40\ndedupe_mode=working_set\ndedupe_working_set_percentage=10", "ef3ca6f8adbd0a79d3fd667b29463e6d7fa7405a1cba31854f494668c98a8edb"},
		{"refill_buffers=1\nbuffer_compress_percentage=70\nbuffer_compress_chunk=1k\nrandom_generator=tausworthe64", "7f48864c705a4fbe770d71cba5aa838cae25b29340b8eb971254dcfa5d4e8bd4"},
		{"zero_buffers=1\ndedupe_percentage=100", "fd3c9f765f42865da5dff78d0a8ecc38842096f94fada2eff605d934e41e44fd"},
	} {
		t.Run(strings.ReplaceAll(c.opts, "\n", ","), func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "x.dat")
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, 256<<10); err != nil {
				t.Fatal(err)
			}
			jobs := parseJobs(t, dir, fmt.Sprintf("[a]\nfilename=%s\nrw=write\nbs=4k\nsize=256k\nioengine=psync\n%s\n", f, c.opts))
			mustRun(t, jobs, Options{})
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != c.sum {
				t.Errorf("sha256 %s, fio wrote %s", got, c.sum)
			}
		})
	}
}

// dupBlocks returns how many 4 KiB blocks of data repeat an earlier one.
func dupBlocks(data []byte) int {
	seen := map[string]bool{}
	n := 0
	for i := 0; i+4096 <= len(data); i += 4096 {
		k := string(data[i : i+4096])
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// TestBufGenRatios checks the shares the options ask for on 4096 buffers
// of 4 KiB: zeros are buffer_compress_percentage of every chunk, and the
// duplicate buffers are about dedupe_percentage (a binomial draw: within
// five standard deviations).
func TestBufGenRatios(t *testing.T) {
	for _, c := range []struct {
		compress, dedupe int
		mode             string
	}{{0, 0, "repeat"}, {25, 0, "repeat"}, {60, 20, "repeat"}, {0, 50, "repeat"}, {10, 30, "working_set"}} {
		j := &jobfile.Job{BS: [jobfile.NumDirs]uint64{4096, 4096, 4096}, RandRepeat: true, RandSeed: 0x89,
			CompressPercentage: c.compress, CompressChunk: 512, DedupePercentage: c.dedupe, DedupeMode: c.mode,
			DedupeWorkingSetPercentage: 5, Size: 16 << 20}
		g := iogen.NewBuffers(j, 1)
		iogen.InitWorkingSet([]iogen.WorkingSetJob{{Job: j, Gen: g, Size: j.Size}})
		const n = 4096
		data := make([]byte, n*4096)
		for i := 0; i < n; i++ {
			g.Fill(data[i*4096:(i+1)*4096], 4096)
		}
		// In every 512-byte chunk the random part comes first, then zeros.
		wantZero := 512 - 512*(100-c.compress)/100
		for i := 0; i < len(data); i += 512 {
			z := 0
			for k := 511; k >= 0 && data[i+k] == 0; k-- {
				z++
			}
			if z < wantZero || z > wantZero+8 {
				t.Fatalf("%+v: chunk at %d ends in %d zeros, want %d", c, i, z, wantZero)
			}
		}
		dups := float64(dupBlocks(data))
		want := float64(c.dedupe) / 100 * n
		sd := 5 * max(1, math.Sqrt(n*float64(c.dedupe)/100*(1-float64(c.dedupe)/100)))
		if dups < want-sd || dups > want+sd {
			t.Errorf("%+v: %v duplicate blocks of %d, want %v ± %.0f", c, dups, n, want, sd)
		}
	}
}

// TestScramble checks fio's small_content_scramble: in each 512 bytes the
// offset lands in the line the time picks and the time in bytes 48..63.
func TestScramble(t *testing.T) {
	b := make([]byte, 4096)
	const now = 5e9 + 3 // 5 s 3 ns
	iogen.Scramble(b, 8192, now)
	line := ((3 ^ 8192) & 7) << 6
	for i := 0; i < 8; i++ {
		blk := b[i*512:]
		if got := binary.LittleEndian.Uint64(blk[line:]); got != 8192+uint64(i)*512 {
			t.Errorf("block %d: offset %d at byte %d", i, got, line)
		}
		if s, ns := binary.LittleEndian.Uint64(blk[48:]), binary.LittleEndian.Uint64(blk[56:]); s != 5 || ns != 3 {
			t.Errorf("block %d: time %d.%09d, want 5.000000003", i, s, ns)
		}
	}
}

// TestScrambledWritesDiffer writes 64 blocks from one buffer (iodepth=1,
// no refill): fio's default scramble_buffers=1 makes every block unique,
// scramble_buffers=0 writes the same block 64 times.
func TestScrambledWritesDiffer(t *testing.T) {
	for _, scr := range []string{"1", "0"} {
		dir := t.TempDir()
		f := filepath.Join(dir, "s.dat")
		jobs := parseJobs(t, dir, fmt.Sprintf("[s]\nfilename=%s\nrw=write\nbs=4k\nsize=256k\nioengine=psync\nscramble_buffers=%s\n", f, scr))
		mustRun(t, jobs, Options{})
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := dupBlocks(data)
		if scr == "1" && d != 0 || scr == "0" && d != 63 {
			t.Errorf("scramble_buffers=%s: %d duplicate blocks of 64", scr, d)
		}
	}
}

// TestContentZeroAllocsPerIO proves generated content (compression,
// dedupe, working set, scrambling) allocates nothing per write.
func TestContentZeroAllocsPerIO(t *testing.T) {
	for _, mode := range []string{"repeat", "working_set", "scramble"} {
		allocs := func(n uint64) float64 {
			return testing.AllocsPerRun(3, func() {
				j := nullJob(t, n, 8, true)
				j.RW = jobfile.RWRandWrite
				if mode == "scramble" {
					j.ScrambleBuffers = true
				} else {
					j.RefillBuffers, j.CompressPercentage, j.CompressChunk = true, 50, 512
					j.DedupePercentage, j.DedupeMode, j.DedupeWorkingSetPercentage = 30, mode, 5
				}
				if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, big := allocs(1<<10), allocs(1<<15)
		for i := 0; i < 2; i++ {
			small, big = min(small, allocs(1<<10)), min(big, allocs(1<<15))
		}
		if big > small+16 {
			t.Errorf("%s: %.0f allocs for 32k writes vs %.0f for 1k: the write path allocates", mode, big, small)
		}
	}
}

// TestVerifyOffsetRefused checks the verify_offset values gofio refuses
// before the run: inside the header, where fio 3.33 fails every block,
// and past the end of a block.
func TestVerifyOffsetRefused(t *testing.T) {
	for _, c := range []struct{ opts, want string }{
		{"verify=crc32c\nverify_offset=40", "inside the 44-byte verify=crc32c header"},
		{"verify=md5\nverify_offset=4050", "do not fit a 4096-byte verify block"},
		{"verify=crc32c\nverify_interval=512\nverify_offset=500", "do not fit a 512-byte verify block"},
	} {
		dir := t.TempDir()
		jobs := parseJobs(t, dir, fmt.Sprintf("[v]\nfilename=%s\nrw=write\nbs=4k\nsize=64k\n%s\n", filepath.Join(dir, "v.dat"), c.opts))
		_, err := Run(context.Background(), jobs, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.opts, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "v.dat")); err == nil {
			t.Errorf("%q: the refused job wrote its file", c.opts)
		}
	}
}
