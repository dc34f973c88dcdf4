package jobfile

import (
	"strconv"
	"strings"
)

// newJob returns a Job holding every option's default.
func newJob() *Job {
	j := &Job{
		FilenameFormat:          "$jobname.$jobnum.$filenum",
		NrFiles:                 1,
		Invalidate:              true,
		IOEngine:                "psync",
		IODepth:                 1,
		IODepthBatchSubmit:      1,
		IODepthBatchCompleteMin: 1,
		RW:                      RWRead,
		RWMixRead:               50,
		RandRepeat:              true,
		RandSeed:                0x89,
		RandomGenerator:         "tausworthe",
		RandomDistribution:      Distribution{Kind: "random"},
		Loops:                   1,
		NumJobs:                 1,
		DoVerify:                true,
		ContinueOnError:         "none",
		ClatPercentiles:         true,
		PercentileList:          DefaultPercentiles(),
		PercentilePrecision:     2,
		SignificantFigures:      4,
		KBBase:                  1024,
		BWAvgTime:               500,
		IOPSAvgTime:             500,
		Stats:                   true,
		PerJobLogs:              true,
		SQThreadPollCPU:         -1,
		NonVectored:             -1,
		TWPriority:              true,
		RateProcess:             "linear",
		RateCycle:               1000,
		IOLog:                   IOLog{ReplayScale: 1, ReplayTimeScale: 100},
		ExitWhat:                "group",
		IOSubmitMode:            "inline",
		Fallocate:               "native",
		Sync:                    "none",
		CreateSerialize:         true,
		Think:                   ThinkTime{Blocks: 1, BlocksType: "complete"},
		LatencyTarget:           LatencyTarget{Percentile: 100},
		SteadyState:             SteadyState{IOPS: true, Slope: true, Pct: true, Limit: 0.01},
		TWThread:                "auto",
		TWList:                  "locked",
	}
	for d := DirRead; d < NumDirs; d++ {
		j.BS[d] = 4096
	}
	engineDefaults(j)
	return j
}

// fixup applies the adjustments fio makes after parsing (init.c
// fixup_options and friends) that do not reject anything.
func fixup(j *Job) {
	if len(j.Filenames) > 0 {
		j.NrFiles = len(j.Filenames)
	}
	if j.NrFiles < 1 {
		j.NrFiles = 1
	}
	if j.OpenFiles == 0 || j.OpenFiles > j.NrFiles {
		j.OpenFiles = j.NrFiles
	}
	if j.IODepthBatchSubmit == 0 || j.IODepthBatchSubmit > j.IODepth {
		j.IODepthBatchSubmit = j.IODepth
	}
	if j.IODepthBatchCompleteMin > j.IODepth {
		j.IODepthBatchCompleteMin = j.IODepth
	}
	if j.IODepthBatchCompleteMax < j.IODepthBatchCompleteMin {
		j.IODepthBatchCompleteMax = j.IODepthBatchCompleteMin
	}
	if j.IODepthLow == 0 || j.IODepthLow > j.IODepth {
		j.IODepthLow = j.IODepth
	}
	if j.GtodReduce {
		j.DisableLat, j.DisableClat, j.DisableSlat = true, true, true
	}
	if j.SQThreadPoll {
		j.RegisterFiles = true // fio's io_uring engine forces it
	}
	j.TaskrunAuto = true
	for _, o := range j.Options {
		switch o.Name {
		case "coop_taskrun", "defer_taskrun", "single_issuer":
			j.TaskrunAuto = false
		}
	}
	if j.DeferTaskrun {
		j.SingleIssuer = true
	}
	if j.Verify == "0" {
		j.Verify = ""
	}
	if j.Verify != "" && !j.refillSet {
		j.RefillBuffers = true
	}
	if j.RandomDistribution.Kind != "random" {
		j.NoRandomMap = true
	}
	for _, a := range j.BlockAlign {
		if a != 0 {
			j.NoRandomMap = true // fio: any use of blockalign= turns off randommap
		}
	}
	if j.Loops == 0 {
		j.Loops = 1
	}
	for i, p := range []*string{&j.WriteLatLog, &j.WriteBWLog, &j.WriteIOPSLog} {
		if j.logNamed[i] {
			*p = j.Name
		}
	}
	fixupZones(&j.Zones, j.OpenFiles)
	fixupVerifyInterval(j)
}

// GeneratedFilename returns the name of file number filenum of a job
// without filename=, from filename_format ($jobname, $jobnum, $filenum),
// inside the job's directory (several directories are used round-robin by
// clone index).
func (j *Job) GeneratedFilename(filenum int) string {
	r := strings.NewReplacer("$jobname", j.Name, "$jobnum", strconv.Itoa(j.SubjobNumber),
		"$filenum", strconv.Itoa(filenum))
	name := r.Replace(j.FilenameFormat)
	if len(j.Directory) > 0 {
		name = strings.TrimSuffix(j.Directory[j.SubjobNumber%len(j.Directory)], "/") + "/" + name
	}
	return name
}

// usesDir reports whether the job's rw pattern issues I/O in direction d.
func (j *Job) usesDir(d Dir) bool {
	switch d {
	case DirRead:
		return j.RW.HasRead() || (j.Verify != "" && j.DoVerify)
	case DirWrite:
		return j.RW.HasWrite()
	}
	return j.RW.HasTrim()
}
