package jobfile

import (
	"strconv"
	"strings"
)

// DefaultJob returns a job that sets no option: every field holds fio
// 3.33's default. A report of results without their job reads its
// defaults here.
func DefaultJob() *Job { return newJob() }

// newJob returns a Job holding every option's default.
func newJob() *Job {
	j := &Job{
		FilenameFormat:          "$jobname.$jobnum.$filenum",
		NrFiles:                 1,
		Invalidate:              true,
		FadviseHint:             "1",
		Mem:                     "malloc",
		HugepageSize:            4 << 20,
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
		FileService:             FileService{Kind: "roundrobin", Nr: 1, Center: -1},
		Loops:                   1,
		NumJobs:                 1,
		DoVerify:                true,
		TrimVerifyZero:          true,
		ClatPercentiles:         true,
		PercentileList:          DefaultPercentiles(),
		PercentilePrecision:     2,
		SignificantFigures:      4,
		KBBase:                  1024,
		BWAvgTime:               500,
		IOPSAvgTime:             500,
		Stats:                   true,
		PerJobLogs:              true,
		LogEntries:              1024,
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
		UniqueFilename:          true,
		Think:                   ThinkTime{Blocks: 1, BlocksType: "complete"},
		LatencyTarget:           LatencyTarget{Percentile: 100},
		SteadyState:             SteadyState{IOPS: true, Slope: true, Pct: true, Limit: 0.01},
		TWThread:                "auto",
		TWList:                  "locked",
		TaskrunMode:             TaskrunFlags,
		TWReap:                  "auto",
	}
	// Buffer contents: fio scrambles by default; buffer_compress_chunk,
	// dedupe_mode and dedupe_working_set_percentage defaults.
	j.ScrambleBuffers, j.CompressChunk = true, 512
	j.DedupeMode, j.DedupeWorkingSetPercentage = "repeat", 5
	for d := DirRead; d < NumDirs; d++ {
		j.BS[d] = 4096
	}
	newerDefaults(j)
	return j
}

// fixup applies the adjustments fio makes after parsing (init.c
// fixup_options and friends) that do not reject anything.
func fixup(j *Job) {
	if len(j.Filenames) > 0 {
		// fio's files are those added; an nrfiles= parsed after the
		// last filename= (possible on the command line, which fio does
		// not sort) keeps only the first nrfiles of them.
		if j.NrFiles >= 1 && j.NrFiles < len(j.Filenames) {
			j.Filenames = j.Filenames[:j.NrFiles]
		}
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
		j.DisableLat, j.DisableClat, j.DisableSlat, j.DisableBW = true, true, true, true
	}
	j.TaskrunAuto = !j.Given("coop_taskrun") && !j.Given("defer_taskrun") && !j.Given("single_issuer")
	j.applyTaskrunMode()
	if j.SQThreadPoll {
		j.RegisterFiles = true // fio's io_uring engine forces it
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
	for i, p := range []*string{&j.WriteLatLog, &j.WriteBWLog, &j.WriteIOPSLog, &j.WriteHistLog} {
		if j.logNamed[i] {
			*p = j.Name
		}
	}
	if j.RW.HasRead() {
		// fio's fixup_options: reads can do overwrites, so a job that
		// reads always lays its files out with data.
		j.Overwrite = true
	}
	if j.PreRead {
		// fio's fixup_options: pre-reading and then dropping the cache
		// would be pointless.
		j.Invalidate = false
	}
	fixupZones(j)
	fixupVerifyInterval(j)
	fixupBuffers(j)
}

// fixupBuffers applies fio's rules for buffer contents and the write-path
// options (init.c fixup_options and init_flags).
func fixupBuffers(j *Job) {
	// init_flags: scramble unless told not to, or told to zero the
	// buffers and not told to scramble; fio's get_io_u never scrambles a
	// job that set buffer_compress_percentage or dedupe_percentage (to
	// anything), or verifies.
	j.ScrambleBuffers = j.ScrambleBuffers && (j.scrambleSet || !(j.ZeroBuffers && j.zeroSet))
	if j.Given("buffer_compress_percentage") || j.Given("dedupe_percentage") || j.Verify != "" {
		j.ScrambleBuffers = false
	}
	// Fully compressible data is zeros; partly compressible data is
	// generated for every write unless refill_buffers was given.
	switch {
	case j.CompressPercentage == 100:
		j.ZeroBuffers, j.CompressPercentage = true, 0
	case j.CompressPercentage > 0 && !j.refillSet:
		j.RefillBuffers = true
	}
	// No in-flight overlap to wait for in a job that changes no data or
	// has one I/O in flight.
	if j.SerializeOverlap && !j.Given("read_iolog") && (!(j.RW.HasWrite() || j.RW.HasTrim()) || j.IODepth == 1) &&
		j.IOSubmitMode != "offload" {
		j.SerializeOverlap = false
	}
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
