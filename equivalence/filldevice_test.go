package equivalence

import (
	"context"
	"testing"

	"github.com/gofio/gofio/internal/mounttest"
)

// TestFillDevice runs fill_device jobs with fio and with gofio, each on a
// fresh 8 MiB tmpfs of its own: both write until ENOSPC and end without an
// error, with the same total_ios and io_bytes (the I/O that hit ENOSPC
// counts as issued, its bytes do not); a later group with
// create_serialize=0 verifies the filled file. It skips when not root.
func TestFillDevice(t *testing.T) {
	fio, gofio := bins.get(t)
	for _, row := range []Row{
		{Name: "options/fill-device", Ref: "fill_device: sequential writes until ENOSPC",
			Args: args(psync, "--rw=write", "--bs=4k", "--fill_device=1"), Exact: syncDepth},
		{Name: "options/fill-fs-time-based", Ref: "fill_fs (fill_device's alias) with time_based: ENOSPC ends it before the runtime",
			Args: args(psync, "--rw=write", "--bs=16k", "--fill_fs=1", "--time_based", "--runtime=30")},
		{Name: "options/fill-device-then-verify", Ref: "fill_device, then a later group verifies the file it filled (the shape of fio's surface-scan.fio)",
			JobFile: "[global]\nioengine=psync\nbs=4k\nverify=crc32c\nverify_interval=512\nfilename=disk.tmp\n[fill]\nrw=write\nfill_device=1\ndo_verify=0\n[check]\nstonewall\ncreate_serialize=0\nrw=read\ndo_verify=1\n",
			// NoKeys: fio writes a "global options" object for a job
			// file's [global] section that gofio does not (see TestE4defrag).
			Exact: syncDepth, NoKeys: true},
		{Name: "options/fill-device-size", Ref: "fill_device with size= smaller than the filesystem: an ordinary job",
			Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=2m", "--fill_device=1"), Exact: syncDepth},
	} {
		var outs []*Outcome
		for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
			dir := mounttest.Tmpfs(t, 8)
			o, err := Run(context.Background(), p.name, p.bin, row, dir)
			if err != nil {
				t.Fatalf("%s: %v", row.Name, err)
			}
			for _, job := range o.Doc.Jobs() {
				if e, ok := Number(job, "error"); !ok || e != 0 {
					t.Errorf("%s: %s: a job ended with error %v", row.Name, p.name, e)
				}
			}
			outs = append(outs, o)
		}
		for _, d := range row.Compare(outs[0], outs[1]) {
			t.Errorf("%s: %s", row.Name, d)
		}
	}
}
