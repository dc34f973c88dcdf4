package jobfile

// This file holds fio's cross-option rules and fixups of the options
// beyond the core set: rates, verify_interval, zones, wait_for.

import "fmt"

// checkRates applies fio's rate rules (init.c fixup_options): rate and
// rate_iops exclude each other, and a minimum may not exceed its rate.
func checkRates(j *Job) (option, msg string) {
	sum := func(a [NumDirs]uint64) uint64 { return a[0] + a[1] + a[2] }
	if (sum(j.Rate) > 0 && sum(j.RateIOPS) > 0) || (sum(j.RateMin) > 0 && sum(j.RateIOPSMin) > 0) {
		return "rate", "rate and rate_iops are mutually exclusive"
	}
	for d := DirRead; d < NumDirs; d++ {
		if (j.Rate[d] > 0 && j.Rate[d] < j.RateMin[d]) || (j.RateIOPS[d] > 0 && j.RateIOPS[d] < j.RateIOPSMin[d]) {
			return "rate_min", fmt.Sprintf("minimum rate exceeds rate (%s)", d)
		}
	}
	return "", ""
}

// fixupVerifyInterval applies fio's verify_interval rules (fixup_options):
// with mixed write sizes it defaults to the smallest; it is at most the
// smallest write (or read) block, and a factor of the smallest and largest
// write block, else their greatest common divisor.
func fixupVerifyInterval(j *Job) {
	if j.Verify == "" {
		return
	}
	minW, maxW := j.BSMin(DirWrite), j.BSMax(DirWrite)
	iv := uint64(j.VerifyInterval)
	if maxW != minW && iv == 0 {
		iv = minW
	}
	if iv > minW {
		iv = minW
	} else if j.RW.HasRead() && iv > j.BSMin(DirRead) {
		iv = j.BSMin(DirRead)
	}
	if iv == 0 || minW%iv != 0 || maxW%iv != 0 {
		a, b := minW, maxW
		for b != 0 {
			a, b = b, a%b
		}
		iv = a
	}
	j.VerifyInterval = int(iv)
}

// fixupZones applies fio's zone defaults (fixup_options): zonemode left
// unset is fio 3.33's default, none (fio's "not specified means strided
// when zonesize is given" branch never runs, since the option's default is
// none), and zonesize with it is the run-time error SizeWithoutMode; strided
// mode with more than one open file is dropped; zonerange defaults to
// zonesize. Values given as a count of zones (the z suffix) become bytes
// as fio's zbd_recalc_options_with_zone_granularity makes them: count
// times the zone size, and nothing without a zone size. fio 3.42's
// write_zone_remainder with zonemode=zbd turns norandommap on when the job
// does not set it.
func fixupZones(j *Job) {
	z := &j.Zones
	if z.Mode == "" {
		z.Mode = "none"
		z.SizeWithoutMode = z.Size > 0
	}
	if z.Mode == "zbd" && j.WriteZoneRemainder && !j.Given("norandommap") {
		j.NoRandomMap = true
	}
	if z.Mode == "strided" && j.OpenFiles > 1 {
		z.Mode = "none"
	}
	if z.Mode == "strided" && z.Range == 0 {
		z.Range = z.Size
	}
	zs, c := z.Size, z.Counts
	if zs == 0 {
		return
	}
	for _, f := range []struct {
		n   uint64
		dst *uint64
	}{{c.Size, &j.Size}, {c.IOSize, &j.IOSize}, {c.Offset, &j.Offset}, {c.OffsetIncrement, &j.OffsetIncrement}, {c.Skip, &z.Skip}} {
		if f.n > 0 {
			*f.dst = f.n * zs
		}
	}
}

// checkZones applies fio's zone rules (fixup_options). explicit reports
// whether zonemode was given.
func checkZones(j *Job, explicit bool) (option, msg string) {
	z := &j.Zones
	switch {
	case explicit && z.Mode == "none" && z.Size > 0:
		return "zonemode=none", "--zonemode=none and --zonesize are not compatible"
	case z.Mode == "zbd" && !j.CreateSerialize:
		return "create_serialize=0", "--zonemode=zbd and --create_serialize=0 are not compatible"
	case z.Mode == "zbd" && j.WriteZoneRemainder && !j.NoRandomMap:
		return "norandommap=0", "fio: write_zone_remainder=1 requires norandommap=1"
	case z.Mode == "strided" && z.Size == 0:
		return "zonemode=strided", "--zonesize must be specified when using --zonemode=strided"
	}
	return "", ""
}

// checkWaitFor applies fio's wait_for_ok to each job: it may not wait for
// itself, and its waitee must be a job defined before it.
func checkWaitFor(jobs []*Job) error {
	for i, j := range jobs {
		if j.WaitFor == "" || j.SubjobNumber > 0 {
			continue
		}
		e := &Error{File: j.File, Line: j.Line, Option: "wait_for=" + j.WaitFor}
		if o, ok := j.Setting("wait_for"); ok {
			e.File, e.Line = o.File, o.Line
		}
		if j.WaitFor == j.Name {
			e.Msg = "a job cannot wait for itself"
			return e
		}
		found := false
		for _, o := range jobs[:i] {
			found = found || (o.SubjobNumber == 0 && o.Name == j.WaitFor)
		}
		if !found {
			e.Msg = fmt.Sprintf("waitee job %s unknown (it must be defined before this job)", j.WaitFor)
			return e
		}
	}
	return nil
}
