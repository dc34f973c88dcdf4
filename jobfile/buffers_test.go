package jobfile

import (
	"strings"
	"testing"
)

// TestBufferOptionFixups checks fio's rules for buffer contents (init.c
// fixup_options and init_flags, options.c's callbacks).
func TestBufferOptionFixups(t *testing.T) {
	type bufs struct {
		Scramble, Refill, Zero bool
		Compress, Dedupe       int
	}
	for _, c := range []struct {
		body string
		want bufs
	}{
		{"rw=write\n", bufs{Scramble: true}},
		{"rw=write\nscramble_buffers=0\n", bufs{}},
		{"rw=write\nzero_buffers\n", bufs{Zero: true}},
		{"rw=write\nzero_buffers\nscramble_buffers=1\n", bufs{Zero: true, Scramble: true}},
		{"rw=write\nrefill_buffers\n", bufs{Scramble: true, Refill: true}},
		{"rw=write\nbuffer_compress_percentage=40\n", bufs{Refill: true, Compress: 40}},
		{"rw=write\nbuffer_compress_percentage=40\nrefill_buffers=0\n", bufs{Compress: 40}},
		{"rw=write\nbuffer_compress_percentage=100\n", bufs{Zero: true}},
		{"rw=write\nbuffer_compress_percentage=0\n", bufs{}},
		{"rw=write\ndedupe_percentage=20\n", bufs{Refill: true, Dedupe: 20}},
		{"rw=write\nbuffer_pattern=0xaa\n", bufs{}},
		{"rw=randrw\nbuffer_pattern=0xaa\n", bufs{Refill: true}},
		{"rw=write\nverify=crc32c\n", bufs{Refill: true}},
	} {
		j := parseOne(t, c.body)
		got := bufs{j.ScrambleBuffers, j.RefillBuffers, j.ZeroBuffers, j.CompressPercentage, j.DedupePercentage}
		if got != c.want {
			t.Errorf("%q: %+v, want %+v", c.body, got, c.want)
		}
	}
}

// TestDedupeWorkingSetRules checks fio's parse-time refusals of
// dedupe_mode=working_set.
func TestDedupeWorkingSetRules(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[j]\nrw=write\ndedupe_percentage=10\ndedupe_mode=working_set\n", "requires size to be set"},
		{"[j]\nrw=write\nsize=1m\nnrfiles=2\ndedupe_percentage=10\ndedupe_mode=working_set\n", "single file per job, but 2 files"},
		{"[j]\nrw=write\nsize=1m\ndedupe_percentage=90\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\n", "impossible to reach expected dedupe percentage 90"},
	} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", c.body)}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
	if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nrw=write\nsize=1m\ndedupe_percentage=10\ndedupe_mode=working_set\n")}, Host: &testHost}); err != nil {
		t.Errorf("a valid working set job: %v", err)
	}
}
