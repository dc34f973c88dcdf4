package target

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

// lockKey names one lock: a job section's file.
type lockKey struct {
	section int
	Path    string
}

// LockRegistry holds the run's lockfile= locks, made when a job of a
// section first asks for a file's lock.
type LockRegistry struct {
	mu    sync.Mutex
	locks map[lockKey]*sync.RWMutex
}

// get returns the lock of section's file path.
func (r *LockRegistry) get(section int, path string) *sync.RWMutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := lockKey{section, path}
	l := r.locks[k]
	if l == nil {
		if r.locks == nil {
			r.locks = map[lockKey]*sync.RWMutex{}
		}
		l = new(sync.RWMutex)
		r.locks[k] = l
	}
	return l
}

// locking reports whether job j locks its files.
func locking(j *jobfile.Job) bool { return j.LockFile != "" && j.LockFile != "none" }

// FileLocks are one job's locks, by file index; nil without lockfile=.
type FileLocks struct {
	locks []*sync.RWMutex
	// shared is lockfile=readwrite: reads share the lock, anything else
	// holds it alone (exclusive: everything does).
	shared bool
}

// NewFileLocks returns the locks of job j's targets from reg, those of
// its job section (the index of the section's first job: numjobs clones
// share their files' locks), or nil when it takes none.
func NewFileLocks(j *jobfile.Job, targets []*Target, section int, reg *LockRegistry) *FileLocks {
	if !locking(j) || len(targets) == 0 {
		return nil
	}
	f := &FileLocks{locks: make([]*sync.RWMutex, len(targets)), shared: j.LockFile == "readwrite"}
	for i, t := range targets {
		f.locks[i] = reg.get(section, t.Path)
	}
	return f
}

// Lock takes file's lock for an I/O of op and returns whether it took it
// shared (the argument unlock wants).
func (f *FileLocks) Lock(file int, op engines.Op) bool {
	if f.shared && op == engines.OpRead {
		f.locks[file].RLock()
		return true
	}
	f.locks[file].Lock()
	return false
}

// Unlock releases file's lock, taken shared or not.
func (f *FileLocks) Unlock(file int, shared bool) {
	if shared {
		f.locks[file].RUnlock()
	} else {
		f.locks[file].Unlock()
	}
}
