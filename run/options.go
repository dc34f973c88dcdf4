package run

import (
	"io"
	"time"

	"github.com/gofio/gofio/engines"
	_ "github.com/gofio/gofio/engines/all" // every engine gofio runs registers
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/ktrace"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Options are the knobs of one Run that do not come from the job files.
type Options struct {
	// Engines maps an ioengine= name to its opener. Nil means
	// DefaultEngines(). Tests inject their own.
	Engines map[string]engines.Opener
	// IOTimeout is --io-timeout: the io_timeout of every job that sets
	// none (see hung.go). 0 is off.
	IOTimeout time.Duration
	// KernelStages is --kernel-stages: the kernel_stages of every job
	// that leaves it at 0.
	KernelStages jobfile.TracerMode
	// KernelLocks is --kernel-locks: the kernel_locks of every job that
	// leaves it at 0.
	KernelLocks jobfile.TracerMode
	// KernelTraceCost is --kernel-trace-cost: the kernel tracers measure
	// their BPF programs' run time (the kernel's BPF statistics, which
	// slow every BPF program on the machine while they are on).
	KernelTraceCost bool
	// Warn receives fio-style warning lines ("note: ...", I/O error
	// lines, engine fallbacks). Nil discards them.
	Warn io.Writer
	// Info receives the informational lines fio prints on stdout while
	// running, such as "job: Laying out IO file (1 file / 16MiB)". Nil
	// discards them.
	Info io.Writer
	// OnProgress, if set, is called once before any job starts with one
	// Progress per job, in job order; the run core updates them with
	// atomics while the jobs run (at most once per reap batch).
	OnProgress func([]*report.Progress)
	// StatusInterval and OnStatus are --status-interval: every interval
	// OnStatus gets the results of every job so far, cumulative (a
	// running job as of its latest copy, an ended one final). OnStatus
	// runs on the run core's status goroutine.
	StatusInterval time.Duration
	OnStatus       func(*report.Result)
	// AuxPath is --aux-path: the directory for the files gofio generates
	// beside the reports (verify_dump's); "" is the working directory.
	AuxPath string
	// Version is copied into Result.Version.
	// Release is the fio release whose output layout the result asks
	// its writers for (report.Result.Release; --fio-release).
	Release report.Release
	Version string
	// StartAt, when not zero, is the wall-clock time the first group's
	// jobs start issuing I/O (--start-at): every file is laid out and
	// opened and every engine set up first, then the run waits for it, so
	// that the hosts of a fleet run start together. A StartAt already past
	// by then fails the run with ErrStartLate, unless StartLate is set:
	// then the jobs start at once.
	StartAt   time.Time
	StartLate bool
	// now returns the monotonic time in nanoseconds since an arbitrary
	// origin. Nil means the runtime's monotonic clock (vDSO
	// CLOCK_MONOTONIC), read directly. It is read once per submit and
	// reap batch and once per task-work item that does not run straight
	// after a harvest (see the package doc).
	now func() int64
	// sleep waits for d; nil means threadsleep.Sleep (clock_nanosleep,
	// which a job's thread does with a timer slack of 1 us). Used by
	// --start-at, startdelay, rate= and rate_iops=, thinktime, read_iolog
	// delays and open_loop's intended times.
	sleep func(d time.Duration)
	// beforeVerify, if set, is called on the job's goroutine between the
	// write phase and the verify phase of a job with verify= and
	// do_verify=1, after every write has completed. A non-nil error ends
	// the job with that error instead of verifying. Tests use it to
	// corrupt a block; nil does nothing.
	beforeVerify func(job *jobfile.Job) error
	// CheckMountedWrite is called for every block device a writing job
	// targets, unless the job sets allow_mounted_write=1; a non-nil error
	// refuses the job before any target is opened for writing. Nil means
	// blockdev.CheckMountedWrite: the device, a partition of it, its whole
	// disk or a holder stacked on them mounted or used as swap, or held
	// exclusively by the kernel. Tests pass a stand-in.
	CheckMountedWrite func(path string) error
	// fadvise is posix_fadvise(2), used to drop a file's page cache
	// (invalidate=1); nil means unix.Fadvise. Tests count the drops.
	fadvise func(fd int, off, n int64, advice int) error
	// Compare says the run is one side of --compare: an io_uring job with
	// sqthread_poll=1 and tw_thread=auto then runs with the SQPOLL
	// goroutine (see tw_thread), so both policies order real submissions.
	Compare bool

	// sample, if set, sees every accounted read or write completion:
	// slat (-1 when not measured), clat and lat in ns. Tests only.
	sample func(d jobfile.Dir, slat, clat, lat int64)
	// kstage, if set, sees every I/O kernel_stages joined: gofio's stamps
	// and the stages, on the tracer's goroutine. Tests only.
	kstage func(r ktrace.Reap, d *[kstage.NumStages]uint64)
	// kstagesTracefs makes kernel_stages trace classic tracepoints even
	// where the kernel has BTF (ktrace.Config.TracefsOnly). Tests only.
	kstagesTracefs bool
}

// DefaultEngines returns the engines built into gofio, by ioengine= name:
// those engines/all registers.
func DefaultEngines() map[string]engines.Opener { return engines.Openers() }

// syncEngine is implemented by engines whose requests finish inside
// Submit (psync). The run core caps their depth at 1, stamps the issue
// time before Submit and records no slat, as fio does for FIO_SYNCIO
// engines.
type syncEngine interface {
	SyncIO() bool
}

// thinker is implemented by engines that set the job's think time
// themselves (cpuio: the pause that makes a burn cycle cpuload% of the
// time); the loop pauses that long after every I/O instead of thinktime=.
type thinker interface {
	ThinkTime() time.Duration
}

// ender is implemented by engines that can end their job before its size
// or runtime (net: a UDP receiver that got the sender's close message,
// as fio's sets td->done). A request that completes with 0 bytes while
// Ended reports true ends the job instead of failing it.
type ender interface {
	Ended() bool
}
