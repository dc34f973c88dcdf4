package equivalence

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/loopdev"
)

// trimRow is one trim job of TestTrim: its options, one per line of the
// job file, which names the loop device the test makes (or, with File, a
// regular file in the scratch directory).
type trimRow struct {
	name  string
	opts  []string
	exact []string
	file  bool
}

// trimRows are fio's trim directions on each engine that trims, with
// the cases where fio's rules are easy to get wrong: the third bs value,
// trimwrite's size= (its writes) and number_ios (doubled), loops, and
// randtrimwrite with offset=, where fio 3.33 adds the offset twice and
// ends after one trim; and trim verify (trim_percentage with
// trim_backlog), whose trimmed blocks must read back as zeroes.
var trimRows = []trimRow{
	{name: "psync-trim", opts: []string{"ioengine=psync", "rw=trim", "bs=4k", "size=2m"}, exact: syncDepth},
	{name: "sync-randtrim-bs", opts: []string{"ioengine=sync", "rw=randtrim", "bs=4k,4k,8k", "size=1m"}, exact: syncDepth},
	{name: "pvsync2-trimwrite-loops", opts: []string{"ioengine=pvsync2", "rw=trimwrite", "bs=4k,8k,16k", "size=1m", "loops=2"}, exact: syncDepth},
	{name: "psync-randtrimwrite-number-ios", opts: []string{"ioengine=psync", "rw=randtrimwrite", "bs=4k", "size=2m", "number_ios=100"}, exact: syncDepth},
	{name: "psync-randtrimwrite-offset", opts: []string{"ioengine=psync", "rw=randtrimwrite", "bs=4k", "offset=1m", "size=1m"}, exact: syncDepth},
	{name: "mmap-randtrimwrite", opts: []string{"ioengine=mmap", "rw=randtrimwrite", "bs=8k", "size=1m"}, exact: syncDepth},
	{name: "io_uring-randtrim", opts: []string{"ioengine=io_uring", "rw=randtrim", "bs=4k", "size=2m", "iodepth=8"}, exact: depthMaps},
	{name: "io_uring-trimwrite", opts: []string{"ioengine=io_uring", "rw=trimwrite", "bs=4k", "size=1m", "iodepth=8"}},
	{name: "libaio-randtrimwrite", opts: []string{"ioengine=libaio", "direct=1", "rw=randtrimwrite", "bs=4k", "size=1m", "iodepth=8"}},
	{name: "null-randtrimwrite", opts: []string{"ioengine=null", "rw=randtrimwrite", "bs=4k", "size=1m"}},
	{name: "psync-trimwrite-trimverify", opts: []string{"ioengine=psync", "rw=trimwrite", "bs=4k", "size=1m", "verify=crc32c", "trim_percentage=50", "trim_backlog=8"}, exact: syncDepth},
	{name: "psync-randtrimwrite-trimverify-zero0", opts: []string{"ioengine=psync", "rw=randtrimwrite", "bs=4k", "size=1m", "verify=md5", "trim_percentage=25", "trim_backlog=16", "trim_backlog_batch=4", "trim_verify_zero=0"}, exact: syncDepth},
	{name: "io_uring-trimwrite-trimverify-zero0", opts: []string{"ioengine=io_uring", "rw=trimwrite", "bs=4k", "size=1m", "iodepth=8", "verify=crc32c", "trim_percentage=50", "trim_backlog=8", "trim_verify_zero=0"}},
	{name: "libaio-randtrimwrite-trimverify", opts: []string{"ioengine=libaio", "direct=1", "rw=randtrimwrite", "bs=4k", "size=1m", "iodepth=8", "verify=crc32c", "trim_percentage=50", "trim_backlog=8"}},
	// A rewrite takes the older block out of fio's sorted log
	// (and off the trim list) when it is issued, the older one in flight
	// or not: 175 trims in both.
	{name: "libaio-randtrimwrite-norandommap-trimverify", opts: []string{"ioengine=libaio", "direct=1", "rw=randtrimwrite", "norandommap", "bs=4k", "size=512k", "iodepth=8", "verify=crc32c", "trim_percentage=40", "trim_backlog=6"}},
	{name: "falloc-randtrim-file", opts: []string{"ioengine=falloc", "rw=randtrim", "bs=4k", "size=1m"}, exact: syncDepth, file: true},
}

// TestTrim runs trimRows with fio and gofio, each on a loop device the
// test makes and removes (its backing file on tmpfs, which discards by
// punching holes), and compares their counts, and the depth maps where
// they do not depend on when writes complete: the synchronous engines,
// and io_uring trimming alone (every trim completes in the queue hook). It skips when not root or without loop devices.
func TestTrim(t *testing.T) {
	fio, gofio := bins.get(t)
	for _, tr := range trimRows {
		t.Run(tr.name, func(t *testing.T) {
			target := "data.bin"
			if !tr.file {
				target = discardLoop(t).Path
			}
			row := Row{Name: "trim/" + tr.name, Ref: "fio trim directions", Exact: tr.exact,
				JobFile: "[j]\nfilename=" + target + "\n" + strings.Join(tr.opts, "\n") + "\n"}
			root := scratchRoot(t)
			var outs []*Outcome
			for _, p := range []struct{ name, bin string }{{"fio", fio}, {"gofio", gofio}} {
				dir := filepath.Join(root, p.name)
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
				t.Errorf("%s: %s\njob file:\n%s", row.Name, d, row.JobFile)
			}
		})
	}
}

// discardLoop returns a loop device of 16 MiB that discards, made for the
// test and removed after it, or skips the test.
func discardLoop(t *testing.T) *loopdev.Device {
	t.Helper()
	d := loopdev.New(t, 16<<20)
	b, err := os.ReadFile("/sys/block/loop" + strconv.Itoa(d.Number) + "/queue/discard_max_bytes")
	if err != nil || strings.TrimSpace(string(b)) == "0" {
		t.Skipf("%s does not discard", d.Path)
	}
	return d
}

// TestBlockErrorPercentilesFioAborts is the test of its row in
// jobfile/DIFFERENCES.md: fio 3.33 aborts on an assertion in stat.c's
// block_state_category (its sort reads each 32-bit block entry as 64
// bits) as soon as a job with block_error_percentiles=1 has trimmed a
// block, so there are no fio figures to match; gofio reports the blocks
// as fio's stat.c means to. randtrim over 256k with the random map trims
// each of the 64 blocks once.
func TestBlockErrorPercentilesFioAborts(t *testing.T) {
	fio, gofio := bins.get(t)
	d := discardLoop(t)
	args := []string{"--name=j", "--filename=" + d.Path, "--ioengine=psync", "--rw=randtrim", "--bs=4k", "--size=256k",
		"--block_error_percentiles=1", "--output-format=json"}
	out, err := scratchCommand(t, fio, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "block_state_category") {
		t.Errorf("fio: %v, output:\n%s\nwant its abort on the block_state_category assertion (else its row in jobfile/DIFFERENCES.md is stale)", err, out)
	}
	out, err = scratchCommand(t, gofio, args...).Output()
	if err != nil {
		t.Fatalf("gofio: %v\n%s", err, out)
	}
	var doc struct {
		Jobs []struct {
			Block struct {
				Percentiles map[string]int `json:"percentiles"`
				States      map[string]int `json:"states"`
			} `json:"block"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Jobs) != 1 {
		t.Fatalf("gofio JSON: %v\n%s", err, out)
	}
	b := doc.Jobs[0].Block
	if b.States["trimmed"] != 64 || b.States["unwritten"] != 0 || b.Percentiles["50.000000"] != 1 || b.Percentiles["99.990000"] != 1 {
		t.Errorf("gofio block object %+v; want 64 blocks trimmed once each", b)
	}
}
