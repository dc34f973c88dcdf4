package jobfile

// This file holds the value parsers and choice lists of fio's options
// beyond the core set (fiooptions.go's table uses them).

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// setU64 parses a size into *p.
func setU64(p *uint64, v string, kbBase int) error {
	n, _, err := parseSize(v, kbBase, false)
	*p = n
	return err
}

// setMicros parses a number of microseconds into *p.
func setMicros(p *time.Duration, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	*p = time.Duration(n) * time.Microsecond
	return err
}

// errnoNames are the errno names ignore_error= accepts, as fio's
// str2error knows them.
var errnoNames = []string{"EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
	"EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR", "EISDIR",
	"EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE",
	"EDOM", "ERANGE"}

// setIgnoreError reads ignore_error=READ,WRITE,VERIFY: per class a
// ':'-separated list of errno names (EIO) or numbers.
func setIgnoreError(j *Job, v string) error {
	classes := strings.Split(v, ",")
	if len(classes) > 3 {
		return errors.New("at most 3 comma-separated lists (read,write,verify)")
	}
	for i, c := range classes {
		j.IgnoreError[i] = nil
		for _, e := range strings.Split(c, ":") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			n, err := strconv.Atoi(e)
			if err != nil {
				n = -1
				for k, name := range errnoNames {
					if name == e {
						n = k + 1
					}
				}
				if n < 0 {
					return fmt.Errorf("unknown error %q (want an errno name such as EIO or a number)", e)
				}
			}
			if n <= 0 {
				return fmt.Errorf("error %d is not a positive errno", n)
			}
			j.IgnoreError[i] = append(j.IgnoreError[i], n)
		}
	}
	return nil
}

// checkMemPolicy checks numa_mem_policy=MODE[:NODES] as fio's
// str_numa_mpol_cb does.
func checkMemPolicy(_ *Job, v string) error {
	if v == "" {
		return nil
	}
	mode, nodes, hasNodes := strings.Cut(v, ":")
	switch mode {
	case "default", "local":
		if hasNodes {
			return fmt.Errorf("numa_mem_policy=%s takes no node list", mode)
		}
		return nil
	case "prefer", "bind", "interleave":
		if !hasNodes || nodes == "" {
			return fmt.Errorf("numa_mem_policy=%s needs a node list (%s:0-1)", mode, mode)
		}
		n, err := parseCPUList(nodes)
		if err != nil {
			return err
		}
		if mode == "prefer" && len(n) != 1 {
			return errors.New("numa_mem_policy=prefer takes one node")
		}
		return nil
	}
	return fmt.Errorf("unknown NUMA memory policy %q (want default, prefer, bind, interleave or local)", mode)
}

// parseZoneSplit reads the ranges of random_distribution=zoned (absolute
// false) or zoned_abs (true) as fio's split_parse_ddir and zone_split_ddir:
// ':'-separated ACCESS[/SIZE] entries, up to the first empty one and at
// most 256. ACCESS is a number (fio keeps its low 8 bits); SIZE is a
// percentage (capped at 100, a negative one read as 100, leading digits as atoi reads them; 0 or left
// out shares what the others leave) or, for zoned_abs, a size in bytes
// (0 when left out). The access percentages must add up to exactly 100
// and the size percentages to at most 100.
func parseZoneSplit(v string, absolute bool, kbBase int) ([]ZoneSplit, error) {
	const missing = 0xff // fio's (uint8_t) -1U
	var zones []ZoneSplit
	for _, e := range strings.Split(v, ":") {
		if e == "" {
			break
		}
		if len(zones) == 256 {
			break // fio: "hit max of 256 split entries"
		}
		a, s, hasSize := strings.Cut(e, "/")
		n, err := parseDecimal(a, kbBase)
		if err != nil {
			return nil, fmt.Errorf("%q: the access percentage %q is not a number", e, a)
		}
		z := ZoneSplit{Access: uint8(n), SizePct: missing}
		switch {
		case absolute && hasSize:
			sz, err := parseDecimal(s, kbBase)
			if err != nil {
				return nil, fmt.Errorf("%q: the size %q is not a number (split conversion failed)", e, s)
			}
			z.Size, z.SizePct = uint64(sz), 0
		case absolute:
			z.SizePct = 0
		case hasSize:
			if p := cAtoi(s); p > 100 || p < 0 {
				z.SizePct = 100
			} else if p != 0 {
				z.SizePct = uint8(p)
			}
		}
		zones = append(zones, z)
	}
	if len(zones) == 0 {
		return nil, nil
	}
	var access, sizes, accessMissing, sizeMissing int
	for _, z := range zones {
		if z.Access == missing {
			accessMissing++
		} else {
			access += int(z.Access)
		}
		if !absolute && z.SizePct == missing {
			sizeMissing++
		} else {
			sizes += int(z.SizePct)
		}
	}
	if access > 100 || (!absolute && sizes > 100) {
		return nil, errors.New("zone_split percentages add to more than 100%")
	}
	if access < 100 {
		return nil, fmt.Errorf("access percentage don't add up to 100 for zoned random distribution (got=%d)", access)
	}
	share := func(sum, nr int) uint8 {
		if nr == 1 && len(zones) == 1 {
			sum = 100
		}
		return uint8((100 - sum) / nr)
	}
	for i := range zones {
		if accessMissing > 0 && zones[i].Access == missing {
			zones[i].Access = share(access, accessMissing)
		}
		if sizeMissing > 0 && zones[i].SizePct == missing {
			zones[i].SizePct = share(sizes, sizeMissing)
		}
	}
	return zones, nil
}

// parseDecimal is fio's str_to_decimal for a count: an integer with an
// optional size suffix, which may be negative.
func parseDecimal(s string, kbBase int) (int64, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	v, _, err := parseSize(strings.TrimPrefix(s, "-"), kbBase, false)
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

// cAtoi is C's atoi: optional blanks and sign, then the leading digits; 0
// when there are none.
func cAtoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31 {
			break
		}
	}
	if neg {
		return -n
	}
	return n
}

// setReplaySkip parses replay_skip= as fio's str_replay_skip_cb: a comma
// list of read, write, trim and sync.
func setReplaySkip(j *Job, v string) error {
	j.IOLog.ReplaySkip = nil
	for _, d := range strings.Split(strings.TrimSpace(v), ",") {
		switch d {
		case "read", "write", "trim", "sync":
			j.IOLog.ReplaySkip = append(j.IOLog.ReplaySkip, d)
		default:
			return fmt.Errorf("unknown skip type %q (want read, write, trim or sync, comma-separated)", d)
		}
	}
	return nil
}

// fileServiceChoices are file_service_type's values, in fio's order.
var fileServiceChoices = []Choice{
	{"random", "Choose a file at random (uniform)"},
	{"zipf", "Zipf randomized"},
	{"pareto", "Pareto randomized"},
	{"normal", "Normal (Gaussian) randomized"},
	{"gauss", "Alias for normal"},
	{"roundrobin", "Round robin select files"},
	{"sequential", "Finish one file before moving to the next"},
}

// setFileService parses file_service_type as fio 3.33's str_fst_cb: the
// N of random, roundrobin and sequential through C's atoi, the
// non-uniform kinds' VALUE[:CENTER] through sscanf's %lf, with fio's
// range checks and messages.
func setFileService(j *Job, v string) error {
	kind, _, _ := choiceIn(fileServiceChoices, v)
	if kind == "gauss" {
		kind = "normal"
	}
	fs := FileService{Kind: kind, Nr: 1, Center: -1}
	// fio's get_opt_postfix: what follows the first colon, trimmed.
	post, hasPost := "", false
	if i := strings.IndexByte(v, ':'); i >= 0 {
		post, hasPost = strings.TrimSpace(v[i+1:]), true
	}
	switch kind {
	case "random", "roundrobin", "sequential":
		if hasPost {
			fs.Nr = cAtoi(post)
		}
		j.FileService = fs
		return nil
	case "zipf":
		fs.Param = 1.1 // fio's FIO_DEF_ZIPF
	case "pareto":
		fs.Param = 0.2 // FIO_DEF_PARETO
	}
	if hasPost {
		val, ok := post, true
		if i := strings.IndexByte(post, ':'); i >= 0 {
			val = post[:i]
			fs.Center, ok = scanFloat(post[i+1:])
		}
		if ok {
			fs.Param, ok = scanFloat(val)
		}
		if !ok {
			return errors.New("file service type random postfix parsing failed")
		}
	}
	if fs.Center != -1 && (fs.Center < 0 || fs.Center > 1) {
		return errors.New("distribution center out of range (0 <= center <= 1.0)")
	}
	switch {
	case kind == "zipf" && fs.Param == 1:
		return errors.New("zipf theta must be different than 1.0")
	case kind == "pareto" && (fs.Param <= 0 || fs.Param >= 1):
		return errors.New("pareto input out of range (0 < input < 1.0)")
	case kind == "normal" && (fs.Param < 0 || fs.Param >= 100):
		return errors.New("normal deviation out of range (0 <= input < 100.0)")
	}
	j.FileService = fs
	return nil
}

// scanFloat reads a number as C's sscanf("%lf") does: blanks first, then
// the longest prefix that is a number; false when there is none.
func scanFloat(s string) (float64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	for n := len(s); n > 0; n-- {
		if f, err := strconv.ParseFloat(s[:n], 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return f, true
		}
	}
	return 0, false
}

// fadviseChoices are fadvise_hint's values.
var fadviseChoices = []Choice{{"0", "Don't issue fadvise/madvise"}, {"1", "Advise using fio IO pattern"},
	{"random", "Advise using FADV_RANDOM"}, {"sequential", "Advise using FADV_SEQUENTIAL"}}

// writeHintChoices are write_hint's values, in the order of Linux's
// RWH_WRITE_LIFE_NONE (1) to RWH_WRITE_LIFE_EXTREME (5); fio gives them no
// help text.
// lockChoices are lockfile's modes.
var lockChoices = []Choice{{"none", "No file locking"}, {"exclusive", "Exclusive file lock"}, {"readwrite", "Read vs write lock"}}

var writeHintChoices = []Choice{{"none", ""}, {"short", ""}, {"medium", ""}, {"long", ""}, {"extreme", ""}}

// memChoices are mem='s values on Linux, as fio 3.33 built without CUDA
// lists them.
var memChoices = []Choice{
	{"malloc", "Use malloc(3) for IO buffers"},
	{"shm", "Use shared memory segments for IO buffers"},
	{"shmhuge", "Like shm, but use huge pages"},
	{"mmap", "Use mmap(2) (file or anon) for IO buffers"},
	{"mmapshared", "Like mmap, but use the shared flag"},
	{"mmaphuge", "Like mmap, but use huge pages"},
}

// setZoneFloat reads zone_reset_threshold or zone_reset_frequency: a list
// of at most one float (fio's maxlen=1), in 0..1 by the option's bounds.
func setZoneFloat(p *float64, v string) error {
	l, _, err := parseFloatList(v)
	if err != nil {
		return err
	}
	if len(l) > 1 {
		return errors.New("the list exceeding max length 1")
	}
	if len(l) == 1 {
		if l[0] < 0 || l[0] > 1 {
			return fmt.Errorf("value out of range: %f (range 0..1)", l[0])
		}
		*p = l[0]
	}
	return nil
}

// parseMergeList reads merge_blktrace_scalars= or merge_blktrace_iters=
// as fio does: a ':'-separated float list of at most 20 values, of which
// the values before the first 0 count, each cut to an int.
func parseMergeList(v string) ([]int, error) {
	parts := strings.Split(v, ":")
	if len(parts) > 20 {
		return nil, fmt.Errorf("at most 20 values, got %d", len(parts))
	}
	var out []int
	counting := true
	for _, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("not a floating point value: %s", p)
		}
		if f == 0 {
			counting = false
		}
		if counting {
			if f >= math.MaxInt32+1 || f <= math.MinInt32-1 {
				return nil, fmt.Errorf("%s: out of the int range", p)
			}
			out = append(out, int(f))
		}
	}
	return out, nil
}

// checkMerge applies merge_blktrace_file's rules (fio's
// merge_blktrace_iologs): it merges read_iolog='s traces, and each of
// merge_blktrace_scalars and merge_blktrace_iters, when given, has one
// value per trace.
func checkMerge(j *Job) (option, msg string) {
	if j.IOLog.MergeFile == "" {
		return "", ""
	}
	if j.IOLog.Read == "" {
		return "merge_blktrace_file", "merge_blktrace_file merges the blktraces of read_iolog=, which is not set"
	}
	n := len(strings.Split(j.IOLog.Read, ":"))
	for _, l := range []struct {
		name string
		vals []int
	}{{"merge_blktrace_scalars", j.IOLog.MergeScalars}, {"merge_blktrace_iters", j.IOLog.MergeIters}} {
		if len(l.vals) > 0 && len(l.vals) != n {
			return l.name, fmt.Sprintf("%s(%d) != nr_logs(%d): one value per read_iolog= trace", l.name, len(l.vals), n)
		}
	}
	return "", ""
}
