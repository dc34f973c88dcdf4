package equivalence

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// LogOffsets reads the offset column (the fifth) of an fio log written
// with log_offset=1.
func LogOffsets(path string) ([]uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	var offs []uint64
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) < 5 {
			return nil, fmt.Errorf("%s: line %q has no offset column", path, sc.Text())
		}
		o, err := strconv.ParseUint(strings.TrimSpace(f[4]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: offset %q: %w", path, f[4], err)
		}
		offs = append(offs, o)
	}
	return offs, sc.Err()
}

// newSequenceEachRun returns a Check that the offset sequence in the log
// differs between the runs of each program, as it does in fio without
// randrepeat.
func newSequenceEachRun(log string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, runs := range [][]*Outcome{fio, gofio} {
			var seqs [][]uint64
			for _, o := range runs {
				offs, err := LogOffsets(filepath.Join(o.Dir, log))
				if err != nil {
					diffs = append(diffs, fmt.Sprintf("%s: %v", o.Program, err))
					continue
				}
				seqs = append(seqs, offs)
			}
			for i := 1; i < len(seqs); i++ {
				if reflect.DeepEqual(seqs[0], seqs[i]) {
					diffs = append(diffs, fmt.Sprintf("%s: runs 0 and %d issued the same offset sequence (%d offsets)", runs[0].Program, i, len(seqs[0])))
				}
			}
		}
		return diffs
	}
}

// docExact returns a Check that compares document-level paths of every
// run exactly.
func docExact(paths ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			for _, d := range CompareJob(fio[i].Doc, gofio[i].Doc, paths, nil, false) {
				diffs = append(diffs, fmt.Sprintf("run %d: %s", i, d))
			}
		}
		return diffs
	}
}
