package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/iolog"
)

// TestMergeBlktraceReplay runs a merge_blktrace_file job: two traces, the
// first for two iterations, merged into the file the option names and
// replayed from it. The merged trace holds trace a twice, the record at
// its turn once more (as fio writes it), and trace b: 2x3+1+2 = 9
// records, 6 reads and 3 writes, all replayed.
func TestMergeBlktraceReplay(t *testing.T) {
	dir := t.TempDir()
	dev := uint32(7<<20 | 9)
	var a, b []byte
	for i, k := range []iolog.Kind{iolog.Read, iolog.Write, iolog.Read} {
		a = append(a, iolog.EncodeTrace(k, uint64(1000+i*1000), uint64(i*8), 4096, dev)...)
	}
	for i, k := range []iolog.Kind{iolog.Write, iolog.Read} {
		b = append(b, iolog.EncodeTrace(k, uint64(1500+i*1000), uint64(64+i*8), 4096, dev)...)
	}
	for name, data := range map[string][]byte{"a.bin": a, "b.bin": b, "data": make([]byte, 1<<20)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	merged := p("merged.bin")
	jobs := parseJobs(t, dir, fmt.Sprintf("[m]\nioengine=psync\nread_iolog=%s:%s\nmerge_blktrace_file=%s\nmerge_blktrace_iters=2:1\nreplay_redirect=%s\nreplay_no_stall=1\n",
		p("a.bin"), p("b.bin"), merged, p("data")))
	r := mustRun(t, jobs, Options{}).Jobs[0]
	if r.Dirs[0].TotalIOs != 6 || r.Dirs[1].TotalIOs != 3 {
		t.Errorf("replayed %d reads and %d writes, want 6 and 3", r.Dirs[0].TotalIOs, r.Dirs[1].TotalIOs)
	}
	st, err := os.Stat(merged)
	if err != nil || st.Size() != 9*48 {
		t.Errorf("merged trace: %v, %v; want 9 records of 48 bytes", st, err)
	}

	// A merge of a file that is not a blktrace is refused before
	// anything is written.
	bad := p("bad.bin")
	if err := os.WriteFile(p("text.log"), []byte("fio version 2 iolog\n"+strings.Repeat("data read 0 4096\n", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs = parseJobs(t, dir, fmt.Sprintf("[m]\nioengine=psync\nread_iolog=%s:%s\nmerge_blktrace_file=%s\nreplay_redirect=%s\n", p("a.bin"), p("text.log"), bad, p("data")))
	_, err = Run(context.Background(), jobs, Options{})
	if err == nil || !strings.Contains(err.Error(), "file is not a blktrace") {
		t.Errorf("merge of a text log: %v, want \"file is not a blktrace\"", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("the refused merge wrote %s (%v)", bad, err)
	}
}
