package jobfile

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CmdprioSplit is one entry of cmdprio_bssplit: Pct percent of the I/Os of
// block size BS carry priority IOPrio, or, when IOPrio is -1, the one of
// cmdprio_class and cmdprio (fio's split_prio).
type CmdprioSplit struct {
	BS     uint64
	Pct    int
	IOPrio int
}

// CmdprioBSSplit parses the job's cmdprio_bssplit as fio 3.33's engine
// does at its start (split_parse_prio_ddir): per direction (read, then
// write after a comma; a single list serves both) ':'-separated
// BS/PCT[/CLASS/LEVEL] entries up to the first empty one, at most 64;
// PCT is capped at 100, CLASS at 3 and LEVEL at 7; entries of 0 percent
// are dropped; the rest is sorted by block size (stably, as glibc's qsort
// sorts few entries). The percentages of one block size may add up to
// 100 at most. fio checks all of it when the job starts, not when it
// parses the job, and so does gofio.
func (j *Job) CmdprioBSSplit() ([2][]CmdprioSplit, error) {
	var out [2][]CmdprioSplit
	s := strings.TrimSpace(j.CmdprioBSSplitText)
	if s == "" {
		return out, nil
	}
	parts := [2]string{s, s}
	if r, w, ok := strings.Cut(s, ","); ok {
		w, _, _ = strings.Cut(w, ",")
		parts = [2]string{r, w}
	}
	for d, part := range parts {
		var entries []CmdprioSplit
		for n, e := range strings.Split(part, ":") {
			if e == "" {
				break
			}
			if n == 64 {
				return out, fmt.Errorf("cmdprio_bssplit: too many entries (at most 64)")
			}
			en, err := parseCmdprioEntry(e, j.KBBase)
			if err != nil {
				return out, fmt.Errorf("cmdprio_bssplit: entry %q: %w", e, err)
			}
			if en.Pct > 0 {
				entries = append(entries, en)
			}
		}
		sort.SliceStable(entries, func(a, b int) bool { return entries[a].BS < entries[b].BS })
		sum := map[uint64]int{}
		for _, e := range entries {
			if sum[e.BS] += e.Pct; sum[e.BS] > 100 {
				return out, fmt.Errorf("cmdprio_bssplit total percentage for bs: %d exceeds 100", e.BS)
			}
		}
		out[d] = entries
	}
	return out, nil
}

// parseCmdprioEntry reads BS/PCT[/CLASS/LEVEL] as fio's sscanf
// "%m[^/]/%u/%u/%u": BS alone (or BS/) is 0 percent, three fields are an
// error.
func parseCmdprioEntry(e string, kbBase int) (CmdprioSplit, error) {
	f := strings.Split(e, "/")
	bs, err := parseInt(f[0], kbBase)
	if err != nil || f[0] == "" {
		return CmdprioSplit{}, fmt.Errorf("the block size %q is not a size (split conversion failed)", f[0])
	}
	en := CmdprioSplit{BS: uint64(bs), IOPrio: -1}
	var nums []int
	for _, x := range f[1:] {
		v, ok := scanUint(x)
		if !ok {
			break
		}
		nums = append(nums, v)
	}
	switch len(nums) {
	case 0:
	case 1:
		en.Pct = min(nums[0], 100)
	case 3:
		en.Pct = min(nums[0], 100)
		en.IOPrio = min(nums[1], 3)<<13 | min(nums[2], 7)
	default:
		return CmdprioSplit{}, fmt.Errorf("want BS/PERCENT or BS/PERCENT/CLASS/LEVEL (invalid cmdprio_bssplit format)")
	}
	return en, nil
}

// scanUint is C's %u on the start of x: blanks, an optional sign, digits
// (a minus wraps, as in C, here to a value over any cap).
func scanUint(x string) (int, bool) {
	x = strings.TrimLeft(x, " \t")
	neg := strings.HasPrefix(x, "-")
	x = strings.TrimLeft(x, "+-")
	end := 0
	for end < len(x) && x[end] >= '0' && x[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(x[:end], 10, 32)
	if err != nil || neg {
		return 1 << 31, true
	}
	return int(v), true
}
