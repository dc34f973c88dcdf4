package equivalence

import (
	"fmt"
	"strings"
)

// trimOptionRows are the trim directions where they need no device:
// the null engine completes trims, so fio 3.33 and gofio issue the same
// I/Os, each trimwrite pair a trim and then a write of the same block
// and length. The loop-device rows are TestTrim's.
var trimOptionRows = []Row{
	iosRow("trim/null-trimwrite-bsrange", "rw=trimwrite: the write of each pair as long as its trim (trims draw from the write seed)", null, "--rw=trimwrite", "--bsrange=512-4k", "--filesize=1m"),
	iosRow("trim/null-randtrimwrite-bs", "rw=randtrimwrite: trims take bs's third value, writes the trim's length", null, "--rw=randtrimwrite", "--bs=4k,4k,8k", "--filesize=1m"),
	iosRow("trim/null-randtrimwrite-norandommap", "rw=randtrimwrite with norandommap and bsrange", null, "--rw=randtrimwrite", "--bsrange=1k-8k", "--norandommap", "--filesize=1m"),
	{Name: "trim/null-randtrim-depth", Ref: "rw=randtrim at iodepth=8 on the null engine",
		Args:  args(null, "--rw=randtrim", "--bs=4k", "--filesize=2m", "--iodepth=8", "--write_bw_log=l", "--log_offset=1"),
		Check: sameIOs("l_bw.1.log")},
}

// sameIOs returns a Check that both programs logged the same I/Os in
// log, a per-I/O log written with log_offset=1: direction, block size
// and offset, in order.
func sameIOs(log string) func(fio, gofio []*Outcome) []string {
	return sameSeq(log, log+" (direction, bs, offset)", "I/O", logIOs)
}

// logIOs returns the direction, block size and offset columns of each
// line of log name of an outcome.
func logIOs(o *Outcome, name string) ([]string, error) {
	recs, err := logRecords(o, name)
	if err == nil && len(recs) == 0 {
		return nil, fmt.Errorf("%s: %s is empty: no offset column", o.Program, name)
	}
	var out []string
	for _, f := range recs {
		if len(f) < 5 {
			return nil, fmt.Errorf("%s: %s: line %q has no offset column", o.Program, name, strings.Join(f, ","))
		}
		out = append(out, strings.Join(f[2:5], ","))
	}
	return out, err
}
