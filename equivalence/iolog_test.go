package equivalence

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/iolog"
)

// TestIologCrossReplay replays the iolog each program wrote with both
// programs, in the writer's directory: fio replaying gofio's log issues
// what gofio replaying it issues, and the other way round.
func TestIologCrossReplay(t *testing.T) {
	fio, gofio := bins.get(t)
	root := scratchRoot(t)
	write := Row{JobFile: "[w]\nioengine=psync\nrw=randrw\nbs=4k\nbsrange=4k-16k\nsize=256k\nnrfiles=2\nrandrepeat=1\nfsync=3\nfilename_format=data.$filenum\nwrite_iolog=w.log\n"}
	replay := Row{JobFile: "[r]\nioengine=psync\nread_iolog=w.log\n"}
	progs := map[string]string{"fio": fio, "gofio": gofio}
	for _, writer := range []string{"fio", "gofio"} {
		dir := filepath.Join(root, writer+"-writes")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), writer, progs[writer], write, dir); err != nil {
			t.Fatal(err)
		}
		out := map[string]*Outcome{}
		for _, p := range []string{"fio", "gofio"} {
			o, err := Run(context.Background(), p, progs[p], replay, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Doc.Jobs()) != 1 {
				t.Fatalf("%s replaying %s's log: %d jobs", p, writer, len(o.Doc.Jobs()))
			}
			out[p] = o
		}
		diffs := CompareJob(out["fio"].Doc.Jobs()[0], out["gofio"].Doc.Jobs()[0], []string{"sync.total_ios"}, nil, true)
		if ios, _ := Number(out["fio"].Doc.Jobs()[0], "write.total_ios"); ios == 0 {
			diffs = append(diffs, "the replay wrote nothing")
		}
		if len(diffs) > 0 {
			t.Errorf("replaying %s's iolog, gofio differs from fio:\n  %s", writer, strings.Join(diffs, "\n  "))
		}
	}
}

// TestBlktraceReplay replays a blktrace binary trace (made here: reads,
// writes of several sizes, flushes, with gaps) with replay_redirect onto
// a scratch file, with fio and gofio: the same counts, and with
// replay_skip the same directions left out.
func TestBlktraceReplay(t *testing.T) {
	fio, gofio := bins.get(t)
	root := scratchRoot(t)
	dev := uint32(7<<20 | 9)
	var trace []byte
	var tm uint64 = 1000
	for i := 0; i < 40; i++ {
		k := iolog.Read
		if i%3 == 0 {
			k = iolog.Write
		}
		trace = append(trace, iolog.EncodeTrace(k, tm, uint64(i*37%2000)*8, uint32(4096*(1+i%4)), dev)...)
		tm += 50_000
		if i%10 == 9 {
			trace = append(trace, iolog.EncodeTrace(iolog.Sync, tm, 0, 0, dev)...)
		}
	}
	for _, extra := range []string{"", "replay_skip=write,sync\n"} {
		out := map[string]*Outcome{}
		for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
			dir := filepath.Join(root, p.name+strings.TrimSuffix(strings.ReplaceAll(extra, ",", "-"), "\n"))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "t.bin"), trace, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "data"), make([]byte, 16<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			r := Row{JobFile: "[b]\nioengine=psync\nread_iolog=t.bin\nreplay_redirect=data\n" + extra}
			o, err := Run(context.Background(), p.name, p.bin, r, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Doc.Jobs()) != 1 {
				t.Fatalf("%s: %d jobs", p.name, len(o.Doc.Jobs()))
			}
			out[p.name] = o
		}
		diffs := CompareJob(out["fio"].Doc.Jobs()[0], out["gofio"].Doc.Jobs()[0], []string{"sync.total_ios"}, nil, true)
		if ios, _ := Number(out["fio"].Doc.Jobs()[0], "read.total_ios"); ios == 0 {
			diffs = append(diffs, "fio replayed no read")
		}
		if len(diffs) > 0 {
			t.Errorf("blktrace replay %q: gofio differs from fio:\n  %s", extra, strings.Join(diffs, "\n  "))
		}
	}
}

// TestIologV2Replay replays a version 2 log (two files, a wait, syncs,
// several sizes) with fio and gofio, plain and with replay_redirect,
// replay_scale and replay_align: the same counts.
func TestIologV2Replay(t *testing.T) {
	fio, gofio := bins.get(t)
	root := scratchRoot(t)
	var b strings.Builder
	b.WriteString("fio version 2 iolog\na.dat add\nb.dat add\na.dat open\nb.dat open\n")
	for i := 0; i < 24; i++ {
		f, act := "a.dat", "read"
		if i%2 == 1 {
			f = "b.dat"
		}
		if i%3 == 0 {
			act = "write"
		}
		fmt.Fprintf(&b, "%s %s %d %d\n", f, act, (i*7919%200)*4096+i*512, 4096*(1+i%3))
		if i == 12 {
			b.WriteString("a.dat wait 20 0\na.dat sync 0 0\nb.dat sync 0 0\n")
		}
	}
	b.WriteString("a.dat close\nb.dat close\n")
	for _, extra := range []string{"", "replay_redirect=c.dat\nreplay_scale=2\nreplay_align=4096\n"} {
		out := map[string]*Outcome{}
		for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
			dir, err := os.MkdirTemp(root, p.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"a.dat", "b.dat", "c.dat"} {
				if err := os.WriteFile(filepath.Join(dir, f), make([]byte, 2<<20), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "v2.log"), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), p.name, p.bin, Row{JobFile: "[r]\nioengine=psync\nread_iolog=v2.log\n" + extra}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Doc.Jobs()) != 1 {
				t.Fatalf("%s: %d jobs", p.name, len(o.Doc.Jobs()))
			}
			out[p.name] = o
		}
		diffs := CompareJob(out["fio"].Doc.Jobs()[0], out["gofio"].Doc.Jobs()[0], []string{"sync.total_ios"}, nil, true)
		diffs = append(diffs, CompareFiles(out["fio"].Files, out["gofio"].Files)...)
		if len(diffs) > 0 {
			t.Errorf("v2 replay %q: gofio differs from fio:\n  %s", extra, strings.Join(diffs, "\n  "))
		}
	}
}

// mergeTraces returns the two blktraces the merge tests merge: 20 records
// (every third a write, 4 or 8 KiB) and 15 (every fourth a write), their
// times interleaved.
func mergeTraces() (a, b []byte) {
	dev := uint32(7<<20 | 9)
	for i := 0; i < 20; i++ {
		k := iolog.Read
		if i%3 == 0 {
			k = iolog.Write
		}
		a = append(a, iolog.EncodeTrace(k, uint64(1000+i*50_000), uint64(i*37%2000)*8, uint32(4096*(1+i%2)), dev)...)
	}
	for i := 0; i < 15; i++ {
		k := iolog.Read
		if i%4 == 0 {
			k = iolog.Write
		}
		b = append(b, iolog.EncodeTrace(k, uint64(30_000+i*70_000), uint64(i*11%2000)*8, uint32(4096*(1+i%2)), dev)...)
	}
	return a, b
}

// TestBlktraceMergeOnly runs --merge-blktrace-only with fio 3.33 and gofio
// on two job files (a job without a merge, then the merge job, with
// numjobs=2, and a cpuio job): both exit 0 and print the same lines, each
// job's line once with its group (the second file starts group 1), none
// for cpuio, and run no I/O. fio 3.33's merge fails ("iolog short read",
// DIFFERENCES.md) and still exits 0; gofio's merges (TestBlktraceMerge).
func TestBlktraceMergeOnly(t *testing.T) {
	fio, gofio := bins.get(t)
	root := scratchRoot(t)
	a, b := mergeTraces()
	files := map[string][]byte{
		"a.bin":   a,
		"b.bin":   b,
		"one.fio": []byte("[plain]\nrw=randwrite\nbs=8k\nsize=1m\nfilename=plain.dat\n"),
		"two.fio": []byte("[m]\nioengine=psync\nnumjobs=2\nread_iolog=a.bin:b.bin\nmerge_blktrace_file=merged.bin\n" +
			"merge_blktrace_scalars=50:100\nmerge_blktrace_iters=2:1\nreplay_redirect=data\n" +
			"[c]\nioengine=cpuio\ncpuload=10\n"),
	}
	stdout := map[string]string{}
	for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
		dir := filepath.Join(root, p.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
		cmd := exec.CommandContext(ctx, p.bin, "--merge-blktrace-only", "one.fio", "two.fio")
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s --merge-blktrace-only: %v (stderr %q), fio 3.33 exits 0", p.name, err, errb.String())
		}
		stdout[p.name] = out.String()
		for _, f := range []string{"plain.dat", "data"} {
			if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
				t.Errorf("%s --merge-blktrace-only made %s (%v)", p.name, f, err)
			}
		}
	}
	if got := strings.Count(stdout["fio"], "\n"); got != 2 || !strings.Contains(stdout["fio"], "m: (g=1): ") {
		t.Errorf("fio 3.33 printed %q, want the lines of plain and m (g=1) alone: update the test", stdout["fio"])
	}
	if stdout["gofio"] != stdout["fio"] {
		t.Errorf("gofio --merge-blktrace-only printed\n%s\nfio 3.33\n%s", stdout["gofio"], stdout["fio"])
	}
	if st, err := os.Stat(filepath.Join(root, "gofio", "merged.bin")); err != nil || st.Size() != 56*48 {
		t.Errorf("gofio's merged file: %v, %v; want 56 records", st, err)
	}
}

// TestBlktraceMerge runs a merge_blktrace_file job (two traces, the first
// at 50% for two iterations) with fio 3.33 and gofio. fio 3.33 merges
// nothing: its read_trace reads 8 bytes where a record has 48 ("iolog
// short read"), it leaves the merged file empty and replays the first
// trace alone (jobfile's DIFFERENCES.md). gofio writes the merge fio's
// documentation describes (byte-equal to fio 3.42's, internal/iolog's
// TestMergeBlktracesFio) and replays it; fio 3.33 replaying gofio's merged
// file issues what gofio issued.
func TestBlktraceMerge(t *testing.T) {
	fio, gofio := bins.get(t)
	root := scratchRoot(t)
	a, b := mergeTraces()
	merge := Row{JobFile: "[m]\nioengine=psync\nread_iolog=a.bin:b.bin\nmerge_blktrace_file=merged.bin\nmerge_blktrace_scalars=50:100\nmerge_blktrace_iters=2:1\nreplay_redirect=data\nreplay_no_stall=1\n"}
	replay := Row{JobFile: "[r]\nioengine=psync\nread_iolog=merged.bin\nreplay_redirect=data\nreplay_no_stall=1\n"}
	counts := func(o *Outcome) [4]float64 {
		j := o.Doc.Jobs()[0]
		r, _ := Number(j, "read.total_ios")
		w, _ := Number(j, "write.total_ios")
		rb, _ := Number(j, "read.io_bytes")
		wb, _ := Number(j, "write.io_bytes")
		return [4]float64{r, w, rb, wb}
	}
	out := map[string]*Outcome{}
	for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
		dir := filepath.Join(root, p.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{"a.bin": a, "b.bin": b, "data": make([]byte, 16<<20)} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o, err := Run(context.Background(), p.name, p.bin, merge, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Doc.Jobs()) != 1 {
			t.Fatalf("%s: %d jobs", p.name, len(o.Doc.Jobs()))
		}
		out[p.name] = o
	}
	// fio 3.33: an empty merged file, the first trace replayed alone
	// (7 writes, 13 reads).
	st, err := os.Stat(filepath.Join(root, "fio", "merged.bin"))
	if err != nil || st.Size() != 0 || !strings.Contains(string(out["fio"].Stderr), "iolog short read") {
		t.Errorf("fio 3.33 no longer fails its merge as DIFFERENCES.md says (merged file %v, %v; stderr %q): update the row", st, err, out["fio"].Stderr)
	}
	if got := counts(out["fio"]); got[0] != 13 || got[1] != 7 {
		t.Errorf("fio 3.33 replayed %v reads and writes, want trace a's 13 and 7 (DIFFERENCES.md)", got[:2])
	}
	// gofio: trace a twice, the record at its turn once more, trace b:
	// 2x20+1+15 = 56 records, 38 reads (26+1+11) and 18 writes (14+4).
	st, err = os.Stat(filepath.Join(root, "gofio", "merged.bin"))
	if err != nil || st.Size() != 56*48 {
		t.Fatalf("gofio's merged file: %v, %v; want 56 records", st, err)
	}
	g := counts(out["gofio"])
	if g[0] != 38 || g[1] != 18 {
		t.Errorf("gofio replayed %v reads and writes of its merge, want 38 and 18", g[:2])
	}
	fr, err := Run(context.Background(), "fio", fio, replay, filepath.Join(root, "gofio"))
	if err != nil {
		t.Fatal(err)
	}
	if f := counts(fr); f != g {
		t.Errorf("fio 3.33 replaying gofio's merged file: reads, writes and their bytes %v; gofio's merge and replay %v", f, g)
	}
}
