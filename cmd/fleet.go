package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// parseStartAt reads --start-at: an RFC 3339 time, or "+" and a Go
// duration from now ("+30s"). A time already past is an error unless late
// is "run".
func parseStartAt(v, late string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	var at time.Time
	if d, ok := strings.CutPrefix(v, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 time (2026-11-30T17:00:00Z) or +DURATION (+30s)", v)
		}
		at = now.Add(dur)
	} else {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 time (2026-11-30T17:00:00Z) or +DURATION (+30s)", v)
		}
		at = t
	}
	if late != "run" && !at.After(now) {
		return time.Time{}, fmt.Errorf("--start-at %s is %v in the past (now %s); pick a later time, or --start-at-late=run to start at once",
			at.Format(time.RFC3339Nano), now.Sub(at).Round(time.Millisecond), now.Format(time.RFC3339))
	}
	return at, nil
}

// newRunID returns a random run id: 16 hex digits.
func newRunID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%016x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// checkRunID refuses run ids that would not survive a file name or a shell.
func checkRunID(id string) error {
	if id == "" || len(id) > 64 {
		return fmt.Errorf("--run-id %q: want 1 to 64 characters", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:", c)) {
			return fmt.Errorf("--run-id %q: want letters, digits and - _ . : only", id)
		}
	}
	return nil
}

// checkFallbackEngine refuses a --fallback-engine the run core does not
// have, or io_uring itself.
func checkFallbackEngine(name string) error {
	if name == "" {
		return nil
	}
	if e, _ := jobfile.EngineByName(name); e.RingFallback {
		return fmt.Errorf("--fallback-engine=%s: the fallback is for when io_uring is unavailable; want psync or another engine", name)
	}
	if _, ok := run.DefaultEngines()[name]; !ok {
		return fmt.Errorf("--fallback-engine=%s: not an engine gofio runs (want psync, sync, pvsync, ...)", name)
	}
	return nil
}

// fallback moves the io_uring jobs onto cfg.FallbackEngine when io_uring
// cannot be set up here, saying so on stderr. It returns the note each
// moved job's report carries, keyed by job, or nil when nothing moved.
func fallback(st *State, cfg *Config, jobs []*jobfile.Job, probe func() error) map[*jobfile.Job]string {
	if cfg.FallbackEngine == "" {
		return nil
	}
	var uses []*jobfile.Job
	for _, j := range jobs {
		if j.Engine().RingFallback {
			uses = append(uses, j)
		}
	}
	if len(uses) == 0 {
		return nil
	}
	err := probe()
	if err == nil {
		return nil
	}
	cause := err.Error()
	var se *uring.SetupError
	if errors.As(err, &se) {
		cause = se.Reason
	}
	st.logf("io_uring is unavailable here (%s); running ioengine=io_uring jobs on %s (--fallback-engine)", cause, cfg.FallbackEngine)
	notes := make(map[*jobfile.Job]string, len(uses))
	for _, j := range uses {
		j.IOEngine = cfg.FallbackEngine
		notes[j] = fmt.Sprintf("ran on %s, not io_uring (--fallback-engine): %s", cfg.FallbackEngine, cause)
	}
	return notes
}

// noteFallback adds the fallback notes to the results of the moved jobs.
func noteFallback(res *report.Result, notes map[*jobfile.Job]string) {
	for _, jr := range res.Jobs {
		if n, ok := notes[jr.Job]; ok {
			jr.EngineNotes = append([]string{n}, jr.EngineNotes...)
		}
	}
}

// withFleet records the run id and any --hostname in info.
func withFleet(cfg *Config, info *report.RunInfo) *report.RunInfo {
	info.RunID = cfg.RunID
	if cfg.Hostname != "" {
		info.Host = cfg.Hostname
	}
	return info
}
