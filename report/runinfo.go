package report

import (
	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/internal/fingerprint"
)

// RunJSONKey is the top-level key under which a run's JSON output carries
// its RunInfo, next to fio's own keys and CompareJSONKey, so a saved result
// describes itself for gofio diff and --baseline.
const RunJSONKey = "gofio_run"

// RunInfo describes where and how a run was made: the machine, the gofio
// build, the jobs as resolved, and the comparison asked for. Its
// Fingerprint is what the figures depend on besides the code: gofio diff,
// --baseline and gofio history refuse to compare runs whose fingerprints
// differ unless told which difference is the point.
type RunInfo struct {
	// Host is the host name (uname -n, or --hostname); RunID ties the
	// hosts of one fleet run together (--run-id, random by default).
	// gofio merge names each client by Host and refuses mixed RunIDs.
	Host     string `json:"host"`
	RunID    string `json:"run_id"`
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpu_model"`
	CPUs     int    `json:"cpus"`
	Version  string `json:"gofio_version"`
	Commit   string `json:"gofio_commit"`
	// JobsHash is the SHA-256 of the resolved jobs' names and options
	// (RunJob), hex; equal hashes mean the same jobs.
	JobsHash string   `json:"jobs_hash"`
	Jobs     []RunJob `json:"jobs"`
	// Compare is the --compare KEY=A,B ("" without it); Sweeps the
	// --sweep arguments as expanded; Repeat the repeats per point and
	// side.
	Compare string   `json:"compare"`
	Sweeps  []string `json:"sweeps"`
	Repeat  int      `json:"repeat"`
	// Env is the rest of the runner's fingerprint: CPU governor, boost,
	// SMT, mitigations and the disks under the jobs; nil in a result
	// saved before gofio recorded it.
	Env *fingerprint.Env `json:"env,omitempty"`
	// Canary is the runner canary read before the run's first job and
	// after its last (runs with --repeat, --sweep, --compare or
	// --baseline); nil for a plain run.
	Canary *canary.Record `json:"canary,omitempty"`
	// DriftPct is the between-run drift allowance of this runner and job
	// (--drift, or the one of the --baseline the run was diffed against),
	// carried so that the next run diffed against this one grants it
	// too; nil when none was given.
	DriftPct *float64 `json:"drift_pct,omitempty"`
}

// RunJob is one resolved job: its name and options in parse order as
// KEY=VALUE (KEY alone for a flag), fio 3.33's options apart from gofio's
// own (tw_priority, sqthread_idle, ...), so the fio half can be fed to fio.
type RunJob struct {
	Name         string   `json:"name"`
	FioOptions   []string `json:"fio_options"`
	GofioOptions []string `json:"gofio_options"`
}

// Fingerprint assembles the run's fingerprint from its parts.
func (i *RunInfo) Fingerprint() fingerprint.Fingerprint {
	gofio := i.Version
	if i.Commit != "" {
		gofio += " " + i.Commit
	}
	return fingerprint.Fingerprint{Kernel: i.Kernel, CPUModel: i.CPUModel, CPUs: i.CPUs, Gofio: gofio,
		JobsHash: i.JobsHash, Env: i.Env}
}
