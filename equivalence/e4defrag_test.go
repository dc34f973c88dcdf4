package equivalence

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/internal/mounttest"
)

// TestE4defrag runs fio's e4defrag example jobs (scaled down) with fio and
// gofio on an ext4 loop device the test makes, and compares their counts.
// It skips when not root or without loop devices.
func TestE4defrag(t *testing.T) {
	fio, gofio := bins.get(t)
	mnt := mounttest.Ext4(t, 128)
	for _, inplace := range []string{"0", "1"} {
		// NoKeys: fio 3.33 writes a "global options" object for a job
		// file's [global] section and gofio does not yet (the key check
		// of the suite's own JobFile rows is where that is tracked).
		row := Row{Name: "engines/e4defrag-inplace" + inplace, Ref: "fio engine e4defrag", NoKeys: true, JobFile: `[global]
ioengine=e4defrag
nrfiles=1
filesize=4m
size=4m
bs=32k

[isolated-e4defrag]
buffered=0
donorname=file.def
filename=file1
inplace=` + inplace + `
rw=write
`}
		var outs []*Outcome
		for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
			dir := filepath.Join(mnt, p.name+inplace)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), p.name, p.bin, row, dir)
			if err != nil {
				t.Fatalf("%s: %v", row.Name, err)
			}
			outs = append(outs, o)
		}
		for _, d := range row.Compare(outs[0], outs[1]) {
			t.Errorf("%s: %s", row.Name, d)
		}
	}
}
