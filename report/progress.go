package report

import "sync/atomic"

// Progress is the live view of a running job that the ETA/status line
// reads. The run core updates it with atomics, at most once per reap batch;
// readers poll it from another goroutine.
type Progress struct {
	// State is fio's run-string character: 'P' not started, '/' ramp,
	// 'R'/'r' seq/rand read, 'W'/'w' write, 'M'/'m' mixed, 'V' verify,
	// 'f' finishing, 'E' exited, '_' reaped, 'X' error, 'K' killed.
	State atomic.Int32
	Bytes [3]atomic.Uint64 // per direction, since the job started
	IOs   [3]atomic.Uint64
	// ClatSum (float64 bits) and ClatN are the job's completion latencies
	// since its stats started, every direction's mean times its samples,
	// and their number: what fio 3.42's lat steady state reads.
	ClatSum, ClatN atomic.Uint64
	OpenFiles      atomic.Int32
	// StartNano and EndNano are the planned start and end (monotonic ns
	// from the run's start); EndNano 0 means unknown (size-based).
	StartNano atomic.Int64
	EndNano   atomic.Int64
	// TotalBytes is the planned byte count for size-based jobs, 0 if time
	// based.
	TotalBytes atomic.Uint64
	// OldestIO is the age in ns of the job's oldest I/O in flight, kept
	// only under io_timeout; 0 when none.
	OldestIO atomic.Int64
}
