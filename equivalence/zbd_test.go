package equivalence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// zbdExamples are fio 3.33's zonemode=zbd examples, each with the rules
// that scale it to a sparse scratch file of zbdExampleSize bytes (fio
// emulates zones on a regular file that already has its size): 1 MiB
// zones, the device replaced by zbd.img. zbd-rand-write writes 1 s instead
// of 180 over 16 zones, so that the zones fill and reset, with one job
// instead of 16, whose offsets are compared over the I/Os both programs
// made; and as written, 16 jobs racing for the zones for 500 ms (label
// zbd-rand-write-16jobs), whose writes in each zone must be sequential
// between resets across all the jobs, as fio's zone locks keep them.
// zbd-seq-read reads 40 zones from zone 524 (524z, as its comment counts
// them); an emulated device starts with every zone empty, so a writer
// first fills 8 zones there.
var zbdExamples = []struct {
	name   string
	label  string // the subtest's name when not name
	jobs   int    // the jobs that race for the zones, when more than one
	before string
	rules  [][2]string
}{
	{name: "zbd-rand-write", rules: [][2]string{
		{`(?m)^zonesize\s*=.*$`, "zonesize=1M"},
		{`(?m)^numjobs\s*=.*$`, "numjobs=1"},
		{`(?m)^runtime\s*=.*$`, "runtime=1\nsize=16m\nwrite_lat_log=l\nlog_offset=1"},
		{`(?m)^filename\s*=.*$`, "filename=zbd.img"},
	}},
	{name: "zbd-rand-write", label: "zbd-rand-write-16jobs", jobs: 16, rules: [][2]string{
		{`(?m)^zonesize\s*=.*$`, "zonesize=1M"},
		{`(?m)^runtime\s*=.*$`, "runtime=500ms\nsize=16m\nwrite_lat_log=l\nlog_offset=1"},
		{`(?m)^filename\s*=.*$`, "filename=zbd.img"},
	}},
	{name: "zbd-seq-read",
		before: "[writer]\nfilename=zbd.img\nzonemode=zbd\nzonesize=1M\nrw=write\nbs=256K\noffset=524z\nsize=8z\nioengine=psync\n\n",
		rules: [][2]string{
			{`(?m)^zonesize\s*=.*$`, "zonesize=1M"},
			{`(?m)^offset\s*=.*$`, "offset=524z"},
			{`(?m)^size\s*=.*$`, "size=40z"},
			{`(?m)^filename\s*=.*$`, "filename=zbd.img\nstonewall"},
		}},
}

// zbdExampleSize is the size of the scratch file the zbd examples run on.
const zbdExampleSize = 600 << 20

// TestFioZbdExamples runs fio 3.33's zbd examples, scaled as zbdExamples
// says, with fio and gofio on the same scratch file size and compares
// every job's I/O counts and bytes and, for zbd-rand-write, the zone
// resets fio's offsets imply against gofio's count. Without fio or fio's
// examples (fioExamples) it skips.
func TestFioZbdExamples(t *testing.T) {
	repo := requireFioExamples(t)
	fio, gofio := bins.get(t)
	for _, ex := range zbdExamples {
		ex := ex
		label := ex.name
		if ex.label != "" {
			label = ex.label
		}
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			text, err := fioExample(repo, ex.name)
			if err != nil {
				t.Fatalf("%v", err)
			}
			for _, r := range ex.rules {
				text = regexp.MustCompile(r[0]).ReplaceAllString(text, r[1])
			}
			row := Row{Name: "example/" + label, JobFile: ex.before + text}
			root := scratchRoot(t)
			outs := map[string]*Outcome{}
			for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
				dir := filepath.Join(root, p.name)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "zbd.img"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(filepath.Join(dir, "zbd.img"), zbdExampleSize); err != nil {
					t.Fatal(err)
				}
				o, err := Run(context.Background(), p.name, p.bin, row, dir)
				if err != nil {
					t.Fatalf("%v", err)
				}
				outs[p.name] = o
			}
			fj, gj := outs["fio"].Doc.Jobs(), outs["gofio"].Doc.Jobs()
			if len(fj) != len(gj) {
				t.Fatalf("fio ran %d jobs, gofio %d", len(fj), len(gj))
			}
			for i := range fj {
				// zbd-rand-write has name= in [global], which names
				// no job.
				if fj[i]["jobname"] != gj[i]["jobname"] {
					t.Errorf("job %d: fio names it %v, gofio %v", i, fj[i]["jobname"], gj[i]["jobname"])
				}
			}
			if ex.jobs > 1 {
				zbdRacingExample(t, outs["fio"], outs["gofio"], ex.jobs)
				return
			}
			timed := ex.name == "zbd-rand-write"
			for i := range fj {
				for _, d := range []string{"read", "write"} {
					for _, f := range []string{"total_ios", "io_bytes"} {
						fv, _ := Number(fj[i], d+"."+f)
						gv, _ := Number(gj[i], d+"."+f)
						if fv != gv && !timed {
							t.Errorf("job %d: %s.%s: fio %v, gofio %v", i, d, f, fv, gv)
						}
						if fv > 0 {
							t.Logf("job %d: %s.%s: fio %v, gofio %v", i, d, f, fv, gv)
						}
					}
				}
			}
			if timed {
				// The same offsets as far as both went, and the zone
				// resets gofio reports are those its writes imply.
				f, err1 := LogOffsets(outs["fio"], "l_lat.1.log")
				g, err2 := LogOffsets(outs["gofio"], "l_lat.1.log")
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				for k := 0; k < len(f) && k < len(g); k++ {
					if f[k] != g[k] {
						t.Fatalf("write %d at %d in fio, %d in gofio", k, f[k], g[k])
					}
				}
				fr, _ := logResets(outs["fio"], "l_lat.1.log", 1<<20)
				gr, err := logResets(outs["gofio"], "l_lat.1.log", 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := Number(gj[0], "gofio.state.zone_resets")
				if uint64(got) != gr || gr == 0 {
					t.Errorf("zone resets: gofio's writes imply %d, gofio reports %v", gr, got)
				}
				t.Logf("writes: fio %d, gofio %d (the same offsets over %d); zone resets: fio's log implies %d, gofio's %d, gofio reports %v",
					len(f), len(g), min(len(f), len(g)), fr, gr, got)
			}
		})
	}
}

// zbdRacingExample checks fio's zbd-rand-write as written, its jobs
// racing for the zones for a while (group_reporting: one report): in both
// programs each zone's writes, over the logs of all the jobs, are
// sequential between resets, and gofio reports the zone resets its writes
// imply.
func zbdRacingExample(t *testing.T, fio, gofio *Outcome, jobs int) {
	t.Helper()
	const zoneSize, bs = 1 << 20, 512 << 10
	var implied [2]uint64
	var writes [2]int
	for p, o := range []*Outcome{fio, gofio} {
		counts := map[uint64][]uint64{}
		for k := 1; k <= jobs; k++ {
			offs, err := logWrites(o, fmt.Sprintf("l_lat.%d.log", k))
			if err != nil {
				t.Fatal(err)
			}
			writes[p] += len(offs)
			countZoneWrites(counts, offs, zoneSize, bs)
		}
		var bad []string
		implied[p], bad = zoneSequential(counts)
		for _, b := range bad {
			t.Errorf("%s: %s", o.Program, b)
		}
	}
	got, _ := Number(gofio.Doc.Jobs()[0], "gofio.state.zone_resets")
	if uint64(got) != implied[1] || implied[1] == 0 {
		t.Errorf("zone resets: gofio's writes imply %d, gofio reports %v", implied[1], got)
	}
	t.Logf("%d jobs: writes fio %d, gofio %d; zone resets their writes imply: fio %d, gofio %d", jobs, writes[0], writes[1], implied[0], implied[1])
}
