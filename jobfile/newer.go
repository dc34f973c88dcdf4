package jobfile

// This file holds the job options fio added after 3.33, up to fio 3.42:
// each keeps fio 3.42's type, default, range and help text and says in
// Since which release added it. gofio still reads every fio 3.33 job file
// as fio 3.33 does: the new options only add, and an option that needs
// hardware this machine may lack (NVMe data placement, multi-range trim)
// parses and validates as fio's and is refused at run time with the
// capability it needs (Job.hardwareError).

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Newer holds the job options fio added after 3.33.
type Newer struct {
	// Comm is comm=: the name of the job's thread (prctl PR_SET_NAME;
	// the kernel keeps 15 bytes), "" to leave it.
	Comm string
	// FileType is filetype=: "" (none, the default: each file is
	// stat'ed), "file", "block" or "char".
	FileType string
	// NumRange is num_range: ranges per trim command (1: one).
	NumRange int
	// RampSize is ramp_size: bytes the job (its group with
	// group_reporting) transfers before its statistics start.
	RampSize uint64
	// ThinkCycles is thinkcycles: loop iterations spun after each
	// completed I/O before the next is issued.
	ThinkCycles uint64
	// PrioHint is priohint: the I/O priority hint of the job's thread
	// (bits 3..12 of the ioprio value); PrioHintSet says it was given.
	PrioHint    int
	PrioHintSet bool
	// EndSyncfs is end_syncfs: syncfs(2) on the job's files once its
	// writes are done, as end_fsync does with fsync(2).
	EndSyncfs bool
	// LogWindowBoth is log_window_value=both: latency logs with
	// log_avg_msec carry the window's mean and its maximum (LogMaxValue
	// alone: the maximum).
	LogWindowBoth bool
	// LogIssueTime is log_issue_time: a column with each I/O's issue
	// time in the latency logs (with log_offset).
	LogIssueTime bool
	// JobStartClock is job_start_clock_id: the clock_gettime clock whose
	// reading at the job's start fio 3.42's JSON reports as job_start.
	JobStartClock int
	// VerifyPatternInterval is verify_pattern_interval: the pattern with
	// %o is laid down afresh every this many bytes of a block (0: once).
	VerifyPatternInterval int
	// VerifyWriteSequence and VerifyHeaderSeed are verify_write_sequence
	// and verify_header_seed: whether a verify header's write sequence
	// number and seed are checked (both on by default).
	VerifyWriteSequence, VerifyHeaderSeed bool
	// RecoverZBDWriteError and WriteZoneRemainder are
	// recover_zbd_write_error and write_zone_remainder (zonemode=zbd).
	RecoverZBDWriteError, WriteZoneRemainder bool
	// Placement is fdp, dataplacement and the placement IDs.
	Placement Placement
	// SPRandom is sprandom and its spr_* options.
	SPRandom SPRandom
}

// Placement is NVMe data placement: dataplacement (fdp=1 is
// dataplacement=fdp), plid_select, plids and dp_scheme.
type Placement struct {
	Type   string   // "none", "fdp" or "streams"
	Select string   // "roundrobin", "random" or "scheme"
	IDs    []uint16 // plids: sorted placement ID indices (streams: IDs)
	Scheme string   // dp_scheme: file of "start, end, index" lines
}

// SPRandom is sprandom= and its options: fio's preconditioning of a
// device to the invalid-block spread of steady-state random writes.
type SPRandom struct {
	On        bool    // sprandom
	Regions   int     // spr_num_regions
	OP        float64 // spr_op: over-provisioning ratio, in (0, 1)
	CacheSize uint64  // spr_cs: the device's cache in bytes
	// SetGenerator and SetNoRandomMap say sprandom set
	// random_generator=lfsr and norandommap=1, which the job left out.
	SetGenerator, SetNoRandomMap bool
}

// newerDefaults sets the defaults of fio's newer options in j.
func newerDefaults(j *Job) {
	j.NumRange = 1
	j.VerifyWriteSequence, j.VerifyHeaderSeed = true, true
	j.Placement = Placement{Type: "none", Select: "roundrobin"}
	j.SPRandom = SPRandom{Regions: 100, OP: 0.15}
	j.SteadyState.Interval = time.Second
}

// maxPlacementIDs is fio's FIO_MAX_DP_IDS.
const maxPlacementIDs = 128

// newerOptions are the options fio 3.34 to 3.42 added, in the order of
// fio 3.42's --cmdhelp=all within each topic.
var newerOptions = []OptionSpec{
	{Name: "filetype", Type: TypeChoice, Default: "none", Since: "3.41", Help: "Assume all files defined in a job are of this type",
		Choices: []Choice{{"none", ""}, {"file", ""}, {"block", ""}, {"char", ""}},
		Note:    "gofio still stats each file and refuses one of another kind (fio sets it up as filetype= says); a missing file is created only with filetype=file",
		custom: func(j *Job, v string) error {
			if j.FileType = v; v == "none" {
				j.FileType = ""
			}
			return nil
		}},
	{Name: "num_range", Type: TypeInt, Default: "1", Min: 0, Max: 256, Since: "3.37", Help: "Number of ranges for trim command",
		Note: "above 1 only with ioengine=io_uring_cmd on an NVMe namespace, which gofio refuses (multi-range DSM)",
		intp: func(j *Job) *int { return &j.NumRange }},
	{Name: "sprandom", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "rw", Since: "3.41",
		Help:  "Set up Sandisk Pseudo Random Preconditioning",
		Note:  "random writes over the file's physical size (size times 1+spr_op) that leave its regions with the invalid blocks of steady state, as fio 3.42; sets random_generator=lfsr and norandommap=1 unless the job sets them",
		boolp: func(j *Job) *bool { return &j.SPRandom.On }},
	{Name: "spr_num_regions", Type: TypeInt, Default: "100", Min: 0, Max: Unbounded, Parent: "sprandom", Since: "3.41",
		Help: "Number of regions for sprandom", intp: func(j *Job) *int { return &j.SPRandom.Regions }},
	{Name: "spr_op", Type: TypeFloatList, Default: "0.15", FMaxLen: 1, Parent: "sprandom", Since: "3.41",
		Help: "Over provisioning ratio for SPRandom", custom: setSPROp},
	{Name: "spr_cs", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, ULL: true, Parent: "sprandom", Since: "3.42",
		Help: "Cache Size in bytes for SPRandom", u64p: func(j *Job) *uint64 { return &j.SPRandom.CacheSize }},
	{Name: "ramp_size", Type: TypeStrVal, Min: 1, Since: "3.42", Help: "Amount of data transferred before measuring performance",
		custom: func(j *Job, v string) error {
			if err := setU64(&j.RampSize, v, j.KBBase); err != nil || j.RampSize > 0 {
				return err
			}
			return errors.New("min value out of range: 0 (1 min)")
		}},
	{Name: "verify_pattern_interval", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Parent: "verify", Since: "3.40",
		Help: "Re-create verify pattern every N bytes", intp: func(j *Job) *int { return &j.VerifyPatternInterval }},
	{Name: "verify_write_sequence", Type: TypeBool, Default: "1", Min: 0, Max: 1, Parent: "verify", Since: "3.38",
		Help: "Verify header write sequence number",
		Note: "gofio checks neither the header's write sequence number nor its seed against the write it expects (fio does): 0 is what gofio does either way", boolp: func(j *Job) *bool { return &j.VerifyWriteSequence }},
	{Name: "verify_header_seed", Type: TypeBool, Default: "1", Min: 0, Max: 1, Parent: "verify", Since: "3.40",
		Help:  "Verify the header seed used to generate the buffer contents",
		Note:  "gofio regenerates each block from its header's seed and checks the data, not the seed against the write it expects (fio does): 0 is what gofio does either way",
		boolp: func(j *Job) *bool { return &j.VerifyHeaderSeed }},
	{Name: "recover_zbd_write_error", Type: TypeBool, Min: 0, Max: 1, Since: "3.40",
		Help:  "Continue writes for sequential write required zones after recovering write errors with care for partial write pointer move",
		Note:  "with zonemode=zbd, gofio's zones are emulated: a failed write leaves the write pointer where it was and there is no device write pointer to read back, so it has no effect beyond fio 3.42's checks (continue_on_error needed; verify only on a synchronous engine)",
		boolp: func(j *Job) *bool { return &j.RecoverZBDWriteError }},
	{Name: "write_zone_remainder", Type: TypeBool, Min: 0, Max: 1, Since: "3.42",
		Help:  "When block size is unaligned, zones have small remainder write areas at ends. Fill them by write instead of zone finish operations for better performance.",
		Note:  "with zonemode=zbd the end of a zone that a block no longer fits is written with a shorter write, as fio 3.42; turns norandommap on unless the job sets it (norandommap=0 is refused)",
		boolp: func(j *Job) *bool { return &j.WriteZoneRemainder }},
	{Name: "fdp", Type: TypeBool, Default: "0", Min: 0, Max: 1, Since: "3.34", Help: "Use Data placement directive (FDP)",
		Note: "needs an NVMe namespace with Flexible Data Placement through io_uring_cmd: refused at run time",
		custom: func(j *Job, v string) error {
			if v == "1" {
				j.Placement.Type = "fdp"
			} else if j.Placement.Type == "fdp" {
				j.Placement.Type = "none"
			}
			return nil
		}},
	{Name: "dataplacement", Aliases: []string{"data_placement"}, Type: TypeChoice, Default: "none", Since: "3.38",
		Help: "Data Placement interface to use",
		Choices: []Choice{{"none", "Do not specify a data placement interface"}, {"fdp", "Use Flexible Data Placement interface"},
			{"streams", "Use Streams interface"}},
		Note:   "fdp and streams need an NVMe namespace through io_uring_cmd: refused at run time",
		custom: func(j *Job, v string) error { j.Placement.Type = v; return nil }},
	{Name: "plid_select", Aliases: []string{"fdp_pli_select"}, Type: TypeChoice, Default: "roundrobin", Since: "3.38",
		Help: "Strategy for selecting next Data Placement ID",
		Choices: []Choice{{"random", "Choose a Placement ID at random (uniform)"}, {"roundrobin", "Round robin select Placement IDs"},
			{"scheme", "Use a scheme(based on LBA) to select Placement IDs"}},
		custom: func(j *Job, v string) error { j.Placement.Select = v; return nil }},
	{Name: "plids", Aliases: []string{"fdp_pli"}, Type: TypeString, Since: "3.38",
		Help:   "Sets which Data Placement ids to use (defaults to all for FDP)",
		Note:   "a comma-separated list of IDs and ranges (1,2-4), at most 128 IDs, each at most 0xFFFF",
		custom: setPlacementIDs},
	{Name: "dp_scheme", Type: TypeString, Since: "3.38", Help: "scheme file that specifies offset-RUH mapping",
		Note:   "must name a regular file, checked (as fio checks it outside --parse-only) before the job runs",
		custom: func(j *Job, v string) error { j.Placement.Scheme = strings.TrimSpace(v); return nil }},
	{Name: "comm", Type: TypeString, Since: "3.42", Help: "Process comm of this job",
		Note:   "names the job's OS thread (gofio runs jobs as threads of one process); the kernel keeps 15 bytes",
		custom: func(j *Job, v string) error { j.Comm = v; return nil }},
	{Name: "priohint", Type: TypeInt, Min: 0, Max: 1023, Since: "3.36", Help: "Set job IO priority hint",
		custom: func(j *Job, v string) error {
			j.PrioHint, _ = strconv.Atoi(v)
			j.PrioHintSet, j.PrioSet = true, true
			return nil
		}},
	{Name: "thinkcycles", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Parent: "thinktime", Since: "3.37",
		Help: "Spin for a constant amount of cycles between requests",
		u64p: func(j *Job) *uint64 { return &j.ThinkCycles }},
	{Name: "end_syncfs", Type: TypeBool, Default: "0", Min: 0, Max: 1, Since: "3.42", Help: "Include sync of FS at the end of job",
		boolp: func(j *Job) *bool { return &j.EndSyncfs }},
	{Name: "log_window_value", Type: TypeChoice, Default: "avg", Since: "3.37", Help: "Log max, average or both sample in a window",
		Choices: logWindowChoices, custom: setLogWindow,
		Note: "fio 3.37 made fio 3.33's log_max_value its alias; gofio keeps log_max_value as its own option, with fio 3.33's help, --showcmd name and these values; both adds the window maximum column after the value, as fio 3.42"},
	{Name: "log_issue_time", Type: TypeBool, Default: "0", Min: 0, Max: 1, Since: "3.38", Help: "Include IO issue time for each log entry",
		boolp: func(j *Job) *bool { return &j.LogIssueTime }},
	{Name: "job_start_clock_id", Type: TypeInt, Min: 0, Max: Unbounded, Since: "3.36",
		Help: "The clock_id passed to the call to clock_gettime used to record job_start in the json output format. Default is 0, or CLOCK_REALTIME",
		intp: func(j *Job) *int { return &j.JobStartClock }},
	{Name: "steadystate_check_interval", Aliases: []string{"ss_interval"}, Type: TypeTime, Default: "1", Unit: time.Second,
		Parent: "steadystate", Since: "3.35",
		Help: "Polling interval for the steady state check (too low means steadystate will not converge)",
		custom: func(j *Job, v string) error {
			d, err := parseTime(v, time.Second)
			j.SteadyState.Interval, j.SteadyState.IntervalSet = d, true
			return err
		}},
}

// logWindowChoices are log_window_value's values, which fio 3.37 gave its
// alias log_max_value too.
var logWindowChoices = []Choice{{"avg", "Log average value over the window"}, {"max", "Log maximum value in the window"},
	{"both", "Log both average and maximum values over the window"}, {"0", "Alias for 'avg'"}, {"1", "Alias for 'max'"}}

// setLogWindow stores log_window_value or log_max_value.
func setLogWindow(j *Job, v string) error {
	j.LogMaxValue, j.LogWindowBoth = v == "max" || v == "1", v == "both"
	return nil
}

// setSPROp reads spr_op: one float, as fio's float list of maxlen 1.
func setSPROp(j *Job, v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || strings.Contains(v, ":") {
		return fmt.Errorf("%q is not one number", v)
	}
	j.SPRandom.OP = f
	return nil
}

// setPlacementIDs reads plids= as fio's str_fdp_pli_cb: comma-separated
// IDs or LO-HI ranges (C's strtoull, base 0), sorted, at most 128 and each
// at most 0xFFFF; an empty entry ends the list.
func setPlacementIDs(j *Job, v string) error {
	var ids []uint16
	for _, entry := range strings.Split(strings.TrimSpace(v), ",") {
		if entry == "" {
			break
		}
		lo, hi, isRange := strings.Cut(entry, "-")
		start := cStrtoull(lo)
		end := start
		if isRange && hi != "" {
			end = cStrtoull(hi)
		}
		if start > end {
			return fmt.Errorf("placement ID range %q runs backwards", entry)
		}
		for id := start; id <= end; id++ {
			if len(ids) >= maxPlacementIDs {
				return fmt.Errorf("only %d IDs supported", maxPlacementIDs)
			}
			if id > 0xFFFF {
				return errors.New("Placement IDs cannot exceed 0xFFFF")
			}
			ids = append(ids, uint16(id))
		}
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	j.Placement.IDs = ids
	return nil
}

// cStrtoull reads the leading number of s as C's strtoull(s, NULL, 0):
// blanks, then decimal, 0x hexadecimal or 0 octal digits; 0 when none.
func cStrtoull(s string) uint64 {
	s = strings.TrimLeft(s, " \t")
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0") && len(s) > 1:
		base, s = 8, s[1:]
	}
	end := 0
	for end < len(s) {
		if _, err := strconv.ParseUint(s[end:end+1], base, 8); err != nil {
			break
		}
		end++
	}
	n, _ := strconv.ParseUint(s[:end], base, 64)
	return n
}

// checkPlacementScheme checks dp_scheme=FILE as fio's str_dp_scheme_cb
// does outside --parse-only: the path must name a regular file.
func checkPlacementScheme(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("lstat() error related to %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", path)
	}
	return nil
}

// checkNewer applies fio 3.42's rules for its newer options (init.c
// fixup_options and td_ramp_period_init): not both ramp_time and
// ramp_size; several ranges per trim neither with trimwrite nor with an
// engine that sends one range per trim (all but io_uring_cmd).
func checkNewer(j *Job) (option, msg string) {
	if j.RampSize > 0 && j.RampTime > 0 {
		return "ramp_size", "job rejected: cannot specify both ramp_time and ramp_size"
	}
	if j.NumRange > 1 && (j.RW == RWTrimWrite || j.RW == RWRandTrimWrite) {
		return "num_range", "trimwrite cannot be used with multiple ranges"
	}
	if j.NumRange > 1 && j.RW.HasTrim() && j.IOEngine != "io_uring_cmd" {
		return "num_range", fmt.Sprintf("can't use multiple ranges with IO engine %s", j.IOEngine)
	}
	return "", ""
}

// fixupSPRandom applies fio 3.42's fixup_options to a sprandom job: it
// sets random_generator=lfsr and norandommap=1 when the job leaves them
// out (SPRandomNotes says so when it runs, as fio does). spRandomError
// refuses what fio refuses when the job starts.
func fixupSPRandom(j *Job) {
	s := &j.SPRandom
	if !s.On || !j.RW.HasWrite() || !j.RW.IsRandom() {
		return
	}
	if !j.Given("random_generator") {
		j.RandomGenerator, s.SetGenerator = "lfsr", true
	}
	if !j.Given("norandommap") {
		j.NoRandomMap, s.SetNoRandomMap = true, true
	}
}

// SPRandomNotes returns fio's notes on what sprandom set for the job.
func (j *Job) SPRandomNotes() []string {
	var out []string
	if j.SPRandom.SetGenerator {
		out = append(out, "fio: sprandom sets random_generator=lfsr")
	}
	if j.SPRandom.SetNoRandomMap {
		out = append(out, "fio: sprandom sets norandommap=1")
	}
	return out
}

// spRandomError returns fio 3.42's refusal of a sprandom job when it
// starts (fixup_options, setup_files, sprandom_init), which its
// --parse-only does not make: one that does not write at random, another
// random_generator or norandommap=0, more than one file, a write block
// size that is not a power of two, no region.
func (j *Job) spRandomError() (option, msg string) {
	if !j.SPRandom.On {
		return "", ""
	}
	switch bs := j.BS[DirWrite]; {
	case !j.RW.HasWrite() || !j.RW.IsRandom():
		return "sprandom", "fio: sprandom requires random write, random_generator=lfsr, norandommap=1"
	case j.RandomGenerator != "lfsr":
		return "random_generator", "fio: sprandom requires random_generator=lfsr"
	case !j.NoRandomMap:
		return "norandommap", "fio: sprandom requires norandommap=1"
	case j.NrFiles != 1:
		return "nrfiles", "fio: SPRandom supports only one file"
	case bs&(bs-1) != 0:
		return "bs", fmt.Sprintf("fio: sprandom: bs [%d] should be power of 2", bs)
	case j.SPRandom.Regions == 0:
		return "spr_num_regions", "fio: requires at least one region"
	}
	return "", ""
}

// hardwareError returns an *Error when the job needs hardware gofio does
// not drive: NVMe data placement or multi-range trims, which fio sends
// only through io_uring_cmd to an NVMe namespace, or what its engine's
// options need (EngineInfo.Needs); or when fio 3.42 refuses its sprandom
// set-up as the job starts.
func (j *Job) hardwareError() error {
	refuse := func(option, msg string) error {
		e := &Error{File: j.File, Line: j.Line, Option: option, Msg: msg}
		for _, o := range j.Options {
			if o.Name == option {
				e.File, e.Line = o.File, o.Line
			}
		}
		return e
	}
	if j.Placement.Scheme != "" {
		if err := checkPlacementScheme(j.Placement.Scheme); err != nil {
			return refuse("dp_scheme", err.Error())
		}
	}
	switch j.Placement.Type {
	case "fdp":
		return refuse("dataplacement", "Flexible Data Placement needs an NVMe namespace with FDP enabled, written through ioengine=io_uring_cmd; gofio does not send placement directives")
	case "streams":
		return refuse("dataplacement", "streams need an NVMe namespace with the Streams directive, written through ioengine=io_uring_cmd; gofio does not send placement directives")
	}
	if j.RampSize > 0 && j.GroupReporting {
		return refuse("ramp_size", "gofio ends ramp_size's ramp per job, not over the reporting group as fio does with group_reporting; leave one of them out")
	}
	if (j.LogWindowBoth || j.LogIssueTime) && j.LogStoreCompressed {
		return refuse("log_store_compressed", "gofio does not store logs with log_window_value=both's or log_issue_time's column compressed yet; write them as text")
	}
	if option, msg := j.spRandomError(); msg != "" {
		return refuse(option, msg)
	}
	if j.NumRange > 1 && j.RW.HasTrim() {
		return refuse("num_range", "multi-range trims need ioengine=io_uring_cmd on an NVMe namespace (Dataset Management); gofio does not send them")
	}
	if needs := j.Engine().Needs; needs != nil {
		if option, msg := needs(j); msg != "" {
			return refuse(option, msg)
		}
	}
	return nil
}
