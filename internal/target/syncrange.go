package target

// unwritten marks a file with no write completed since its last sync, as
// fio's -1ULL first_write and last_write.
const unwritten = ^uint64(0)

// writeSpan is the span of one file's writes completed since its last
// sync: fio's first_write and last_write.
type writeSpan struct{ first, last uint64 }

// SyncRanges are the spans sync_file_range= syncs, one per file. The
// loop keeps them only for a job with sync_file_range (nil otherwise), so
// other jobs pay nothing at their write completions.
type SyncRanges []writeSpan

// NewSyncRanges returns the spans of n files, none written yet.
func NewSyncRanges(n int) SyncRanges {
	r := make(SyncRanges, n)
	r.resetAll()
	return r
}

// resetAll marks every file unwritten.
func (r SyncRanges) resetAll() {
	for i := range r {
		r[i] = writeSpan{unwritten, unwritten}
	}
}

// Wrote widens file's span by a completed write of n bytes at off, as
// fio's file_log_write_comp.
func (r SyncRanges) Wrote(file int, off, n uint64) {
	s := &r[file]
	if s.first == unwritten || off < s.first {
		s.first = off
	}
	if s.last == unwritten || off+n > s.last {
		s.last = off + n
	}
}

// Synced marks file unwritten: any sync of it completed, as in fio's
// io_completed.
func (r SyncRanges) Synced(file int) { r[file] = writeSpan{unwritten, unwritten} }

// Span returns the offset and length a sync_file_range of file covers:
// fio's first_write and last_write - first_write, length 0 when nothing
// was written since the last sync.
func (r SyncRanges) Span(file int) (off, n uint64) {
	s := r[file]
	return s.first, s.last - s.first
}
