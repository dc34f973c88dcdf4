package jobfile

import (
	"fmt"
	"os"
	"strings"
)

// validate applies the cross-option rules fio checks at job setup (or not
// at all), so that a bad job fails before anything runs.
func validate(j *Job, s *section) error {
	bad := func(option, format string, args ...any) error {
		e := &Error{File: s.file, Line: s.line, Option: option, Msg: fmt.Sprintf(format, args...)}
		// Point at where the option was last set (file:line, --set or the
		// command line) when the job set it explicitly.
		name, _, _ := strings.Cut(option, "=")
		if o, ok := j.Setting(name); ok {
			e.File, e.Line = o.File, o.Line
		}
		return e
	}
	if err := checkEngine(j.IOEngine); err != nil {
		return bad("ioengine="+j.IOEngine, "%s", err)
	}
	e := j.Engine()
	if e.Validate != nil {
		if opt, msg := e.Validate(j); msg != "" {
			return bad(opt, "%s", msg)
		}
	}
	switch {
	case j.NumJobs < 1:
		return bad("numjobs=0", "numjobs must be at least 1")
	case j.OffsetAlignSet && j.OffsetAlign == 0 && (j.OffsetPercent > 0 || j.OffsetIncrementPercent > 0):
		return bad("offset_align=0", "a percentage offset is rounded up to offset_align, which must not be 0 (fio 3.33 divides by it and dies of SIGFPE)")
	case j.RegisterFiles && j.OpenFiles != j.NrFiles:
		return bad("registerfiles", "registered files (registerfiles, or sqthread_poll which implies it) need openfiles=%d equal to nrfiles=%d",
			j.OpenFiles, j.NrFiles)
	case e.MaxDepth > 0 && j.IODepth > e.MaxDepth:
		return bad(fmt.Sprintf("iodepth=%d", j.IODepth), "iodepth above the %s maximum of %d entries", j.IOEngine, e.MaxDepth)
	case j.Hipri && !j.Direct && e.HipriNeedsDirect:
		return bad("hipri", "polled I/O (hipri) needs direct=1")
	case j.DeferTaskrun && j.SQThreadPoll:
		return bad("defer_taskrun", "defer_taskrun cannot be combined with sqthread_poll (the kernel rejects the pair)")
	case j.TrimVerify() && !j.RW.HasTrim():
		return bad("trim_backlog", "trim_percentage with trim_backlog trims written blocks, which needs rw=trimwrite or randtrimwrite; fio 3.33 aborts rw=%s on an assertion (fio_ro_check) at its first such trim", j.RW)
	case j.Verify == "pattern" && len(j.VerifyPattern) == 0:
		return bad("verify=pattern", "verify=pattern needs verify_pattern=")
	case j.Verify != "" && !j.RW.HasWrite() && !j.RW.HasRead():
		return bad("verify="+j.Verify, "verify needs a pattern that writes or reads")
	case j.BlockErrorPercentiles && j.NrFiles != 1:
		return bad("block_error_percentiles", "block error histogram only available with a single file per job, but %d files provided", j.NrFiles)
	}
	if opt, msg := checkDedupe(j); msg != "" {
		return bad(opt, "%s", msg)
	}
	if opt, msg := checkMerge(j); msg != "" {
		return bad(opt, "%s", msg)
	}
	if opt, msg := checkNewer(j); msg != "" {
		return bad(opt, "%s", msg)
	}
	if opt, msg := checkRates(j); msg != "" {
		return bad(opt, "%s", msg)
	}
	if opt, msg := checkOpenLoop(j); msg != "" {
		return bad(opt, "%s", msg)
	}
	if opt, msg := checkZones(j, j.Given("zonemode")); msg != "" {
		return bad(opt, "%s", msg)
	}
	minBS := j.MinBS()
	if j.Direct && !j.BSUnaligned {
		for d := DirRead; d < NumDirs; d++ {
			if j.usesDir(d) && j.BS[d]%512 != 0 && len(j.BSSplit[d]) == 0 && j.BSRangeMin[d] == 0 {
				return bad(fmt.Sprintf("bs=%d", j.BS[d]), "with direct=1 the %s block size must be a multiple of 512", d)
			}
		}
	}
	if j.Size > 0 && minBS > 0 && j.Size < minBS {
		return bad(fmt.Sprintf("size=%d", j.Size), "size too small, must not be less than minimum block size: %d < %d", j.Size, minBS)
	}
	for _, f := range j.Filenames {
		if f == "-" {
			return bad("filename=-", "stdin/stdout as a target is not supported by gofio")
		}
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			return bad("filename="+f, "%s is a directory; use directory= for a place to create files", f)
		}
	}
	return nil
}

// checkDedupe applies fio's rules for dedupe_mode=working_set (init.c
// fixup_options): the working set is a share of size=, of one file, and
// leaves room for the dedupe percentage.
func checkDedupe(j *Job) (option, msg string) {
	if j.DedupePercentage == 0 || j.DedupeMode != "working_set" {
		return "", ""
	}
	switch {
	case !j.Given("size"):
		return "dedupe_mode=working_set", "pregenerated dedupe working set requires size to be set"
	case j.NrFiles != 1:
		return "dedupe_mode=working_set", fmt.Sprintf("dedupe working set mode supported with single file per job, but %d files provided", j.NrFiles)
	case j.DedupeWorkingSetPercentage+j.DedupePercentage > 100:
		return "dedupe_working_set_percentage", fmt.Sprintf("impossible to reach expected dedupe percentage %d since %d percentage of size is reserved to dedupe working set (those are unique pages)",
			j.DedupePercentage, j.DedupeWorkingSetPercentage)
	}
	return "", ""
}
