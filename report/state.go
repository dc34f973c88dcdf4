package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/jobfile"
)

// StateJSONKey is the key of a job's exact state inside its "gofio" JSON
// object.
const StateJSONKey = "state"

// JobState is the part of a JobResult that fio's JSON rounds (means and
// deviations to six decimals, distributions to percentages) or leaves out
// (the histograms, unless json+), kept exactly so that gofio merge can add
// many hosts' results as fio's client mode adds its clients' thread_stat
// structs: histograms bin by bin, so the merged percentiles are exact.
// Every gofio JSON job carries it under "gofio"/"state".
type JobState struct {
	Members       int                `json:"members"`
	ElapsedNs     int64              `json:"elapsed_ns"`
	FirstIONs     int64              `json:"first_io_ns,omitempty"`
	Dirs          [3]DirState        `json:"dirs"` // read, write, trim
	Sync          StatState          `json:"sync"`
	SyncIOs       uint64             `json:"sync_ios"`
	ZoneResets    uint64             `json:"zone_resets,omitempty"`
	JobRuntimeNs  int64              `json:"job_runtime_ns"`
	UsrNs         int64              `json:"usr_ns"`
	SysNs         int64              `json:"sys_ns"`
	Ctx           uint64             `json:"ctx"`
	Majf          uint64             `json:"majf"`
	Minf          uint64             `json:"minf"`
	IODepth       [7]uint64          `json:"iodepth"`
	Submit        [7]uint64          `json:"submit"`
	Complete      [7]uint64          `json:"complete"`
	SubmitCalls   uint64             `json:"submit_calls"`
	CompleteCalls uint64             `json:"complete_calls"`
	LatNs         [10]uint64         `json:"lat_ns"`
	LatUs         [10]uint64         `json:"lat_us"`
	LatMs         [12]uint64         `json:"lat_ms"`
	TotalErr      uint64             `json:"total_err"`
	FirstErr      int                `json:"first_err"`
	ErrorText     string             `json:"error_text,omitempty"`
	TWWait        StatState          `json:"tw_wait"`
	Policy        string             `json:"policy"`
	Reap          string             `json:"reap,omitempty"`
	InFlightArea  uint64             `json:"inflight_area,omitempty"`
	InFlightTime  uint64             `json:"inflight_ns,omitempty"`
	EngineNotes   []string           `json:"engine_notes,omitempty"`
	StartNs       int64              `json:"start_ns"`
	LatencyDepth  int                `json:"latency_depth"`
	SteadyState   *SteadyState       `json:"steadystate,omitempty"`
	Blocks        []uint32           `json:"blocks,omitempty"` // block_error_percentiles (BlockInfos)
	KernelStages  *KernelStagesState `json:"kernel_stages,omitempty"`
	KernelLocks   *klock.Locks       `json:"kernel_locks,omitempty"`
	OpenLoop      *OpenLoopState     `json:"open_loop,omitempty"`
}

// DirState is one direction of a JobState.
type DirState struct {
	IOBytes   uint64    `json:"io_bytes"`
	TotalIOs  uint64    `json:"total_ios"`
	ShortIOs  uint64    `json:"short_ios"`
	DropIOs   uint64    `json:"drop_ios"`
	RuntimeNs int64     `json:"runtime_ns"`
	Slat      StatState `json:"slat"`
	Clat      StatState `json:"clat"`
	Lat       StatState `json:"lat"`
	BW        Stat      `json:"bw"`
	IOPS      Stat      `json:"iops"`
}

// StatState is a Stat with its histogram, the non-zero buckets keyed by
// bucket index (fio's plat_idx).
type StatState struct {
	Stat
	Bins map[string]uint64 `json:"bins,omitempty"`
}

func statState(s Stat, h *Hist) StatState {
	st := StatState{Stat: s}
	for i, c := range h {
		if c != 0 {
			if st.Bins == nil {
				st.Bins = make(map[string]uint64)
			}
			st.Bins[strconv.Itoa(i)] = c
		}
	}
	return st
}

func (st StatState) apply(s *Stat, h *Hist) error {
	*s = st.Stat
	*h = Hist{}
	var n uint64
	for k, c := range st.Bins {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= fiostat.HistBuckets {
			return fmt.Errorf("histogram bucket %q: want 0 to %d", k, fiostat.HistBuckets-1)
		}
		h[i] = c
		n += c
	}
	if st.Bins != nil && n != st.N {
		return fmt.Errorf("histogram holds %d samples, the stat %d", n, st.N)
	}
	return nil
}

// StateOf returns j's exact state.
func StateOf(j *JobResult) JobState {
	s := JobState{
		Members: members(j), ElapsedNs: int64(j.Elapsed), SyncIOs: j.SyncIOs, ZoneResets: j.ZoneResets,
		Sync:         statState(j.SyncLat, &j.SyncHist),
		JobRuntimeNs: int64(j.JobRuntime), UsrNs: int64(j.UsrCPU), SysNs: int64(j.SysCPU),
		Ctx: j.Ctx, Majf: j.Majf, Minf: j.Minf,
		IODepth: j.IODepth, Submit: j.Submit, Complete: j.Complete,
		SubmitCalls: j.SubmitCalls, CompleteCalls: j.CompleteCalls,
		LatNs: j.LatNs, LatUs: j.LatUs, LatMs: j.LatMs,
		TotalErr: j.TotalErr, FirstErr: j.FirstErr, ErrorText: j.ErrorText,
		TWWait: statState(j.TWWait, &j.TWWaitHist), Policy: j.Policy, Reap: j.Reap,
		InFlightArea: j.InFlightArea, InFlightTime: j.InFlightTime,
		EngineNotes: j.EngineNotes, LatencyDepth: j.LatencyDepth, SteadyState: j.SteadyState,
		Blocks: j.Blocks, KernelStages: kernelStagesState(j.KernelStages), KernelLocks: j.KernelLocks,
		OpenLoop: openLoopState(j.OpenLoop),
	}
	if !j.FirstIO.IsZero() {
		s.FirstIONs = j.FirstIO.UnixNano()
	}
	if !j.Start.IsZero() {
		s.StartNs = j.Start.UnixNano()
	}
	for d := range j.Dirs {
		jd := &j.Dirs[d]
		s.Dirs[d] = DirState{
			IOBytes: jd.IOBytes, TotalIOs: jd.TotalIOs, ShortIOs: jd.ShortIOs, DropIOs: jd.DropIOs,
			RuntimeNs: int64(jd.Runtime),
			Slat:      statState(jd.Slat, &jd.SlatHist),
			Clat:      statState(jd.Clat, &jd.ClatHist),
			Lat:       statState(jd.Lat, &jd.LatHist),
			BW:        jd.BW, IOPS: jd.IOPS,
		}
	}
	return s
}

// JobResultFromState rebuilds a JobResult from its state and the job it
// ran (name, group and error come from the JSON around the state).
func JobResultFromState(s *JobState, job *jobfile.Job, name string, group, errno int) (*JobResult, error) {
	j := &JobResult{
		Job: job, Name: name, GroupID: group, Members: s.Members, Error: errno, ErrorText: s.ErrorText,
		Elapsed:    time.Duration(s.ElapsedNs),
		JobRuntime: time.Duration(s.JobRuntimeNs), UsrCPU: time.Duration(s.UsrNs), SysCPU: time.Duration(s.SysNs),
		Ctx: s.Ctx, Majf: s.Majf, Minf: s.Minf,
		TotalErr: s.TotalErr, FirstErr: s.FirstErr, Policy: s.Policy, Reap: s.Reap,
		EngineNotes: s.EngineNotes, LatencyDepth: s.LatencyDepth, SteadyState: s.SteadyState,
		Blocks: s.Blocks,
	}
	j.IOStats = IOStats{SyncIOs: s.SyncIOs, ZoneResets: s.ZoneResets,
		IODepth: s.IODepth, Submit: s.Submit, Complete: s.Complete,
		SubmitCalls: s.SubmitCalls, CompleteCalls: s.CompleteCalls,
		LatNs: s.LatNs, LatUs: s.LatUs, LatMs: s.LatMs,
		InFlightArea: s.InFlightArea, InFlightTime: s.InFlightTime,
	}
	if s.FirstIONs != 0 {
		j.FirstIO = time.Unix(0, s.FirstIONs)
	}
	if s.StartNs != 0 {
		j.Start = time.Unix(0, s.StartNs)
	}
	if err := s.Sync.apply(&j.SyncLat, &j.SyncHist); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	if err := s.TWWait.apply(&j.TWWait, &j.TWWaitHist); err != nil {
		return nil, fmt.Errorf("tw_wait: %w", err)
	}
	ks, err := s.KernelStages.apply()
	if err != nil {
		return nil, err
	}
	j.KernelStages = ks
	j.KernelLocks = s.KernelLocks
	if j.OpenLoop, err = s.OpenLoop.apply(); err != nil {
		return nil, err
	}
	for d := range j.Dirs {
		sd, jd := &s.Dirs[d], &j.Dirs[d]
		jd.IOBytes, jd.TotalIOs, jd.ShortIOs, jd.DropIOs = sd.IOBytes, sd.TotalIOs, sd.ShortIOs, sd.DropIOs
		jd.Runtime = time.Duration(sd.RuntimeNs)
		jd.BW, jd.IOPS = sd.BW, sd.IOPS
		for _, p := range []struct {
			name string
			st   *StatState
			s    *Stat
			h    *Hist
		}{{"slat", &sd.Slat, &jd.Slat, &jd.SlatHist}, {"clat", &sd.Clat, &jd.Clat, &jd.ClatHist}, {"lat", &sd.Lat, &jd.Lat, &jd.LatHist}} {
			if err := p.st.apply(p.s, p.h); err != nil {
				return nil, fmt.Errorf("%s %s: %w", jobfile.Dir(d), p.name, err)
			}
		}
	}
	return j, nil
}
