package equivalence

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
