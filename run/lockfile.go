package run

import (
	"sync"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// This file holds lockfile=, as fio 3.33 runs it: one lock per file of a
// job, shared by the job's numjobs clones (fio's dup_files hands the
// clones the parent's locks; another job on the same file has its own),
// taken before an I/O is queued and released when the queue call
// returns (fio's td_io_prep and td_io_queue). For the synchronous engines
// the I/O runs inside that call, so the lock is held while it runs; for
// io_uring and libaio it covers preparing the request only.

// planFileLocks gives each job with lockfile= a lock per target: the one
// its section's first job has for the same path when it is a numjobs
// clone, else a new one.
func planFileLocks(runs []*jobRun) {
	var parent *jobRun
	for _, jr := range runs {
		if jr.job.SubjobNumber == 0 {
			parent = jr
		}
		if !locking(jr.job) {
			continue
		}
		jr.locks = make([]*sync.RWMutex, len(jr.targets))
		for i, t := range jr.targets {
			if jr != parent && parent != nil && parent.locks != nil {
				for k, pt := range parent.targets {
					if pt.path == t.path {
						jr.locks[i] = parent.locks[k]
					}
				}
			}
			if jr.locks[i] == nil {
				jr.locks[i] = new(sync.RWMutex)
			}
		}
	}
}

// locking reports whether job j locks its files.
func locking(j *jobfile.Job) bool { return j.LockFile != "" && j.LockFile != "none" }

// fileLocks are one job's locks, by file index; nil without lockfile=.
type fileLocks struct {
	locks []*sync.RWMutex
	// shared is lockfile=readwrite: reads share the lock, anything else
	// holds it alone (exclusive: everything does).
	shared bool
}

// newFileLocks returns the locks of job j over locks, or nil when it
// takes none.
func newFileLocks(j *jobfile.Job, locks []*sync.RWMutex) *fileLocks {
	if !locking(j) || len(locks) == 0 {
		return nil
	}
	return &fileLocks{locks: locks, shared: j.LockFile == "readwrite"}
}

// lock takes file's lock for an I/O of op and returns whether it took it
// shared (the argument unlock wants).
func (f *fileLocks) lock(file int, op engines.Op) bool {
	if f.shared && op == engines.OpRead {
		f.locks[file].RLock()
		return true
	}
	f.locks[file].Lock()
	return false
}

// unlock releases file's lock, taken shared or not.
func (f *fileLocks) unlock(file int, shared bool) {
	if shared {
		f.locks[file].RUnlock()
	} else {
		f.locks[file].Unlock()
	}
}
