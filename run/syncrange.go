package run

// unwritten marks a file with no write completed since its last sync, as
// fio's -1ULL first_write and last_write.
const unwritten = ^uint64(0)

// writeSpan is the span of one file's writes completed since its last
// sync: fio's first_write and last_write.
type writeSpan struct{ first, last uint64 }

// syncRanges are the spans sync_file_range= syncs, one per file. The
// loop keeps them only for a job with sync_file_range (nil otherwise), so
// other jobs pay nothing at their write completions.
type syncRanges []writeSpan

// newSyncRanges returns the spans of n files, none written yet.
func newSyncRanges(n int) syncRanges {
	r := make(syncRanges, n)
	r.resetAll()
	return r
}

// resetAll marks every file unwritten.
func (r syncRanges) resetAll() {
	for i := range r {
		r[i] = writeSpan{unwritten, unwritten}
	}
}

// wrote widens file's span by a completed write of n bytes at off, as
// fio's file_log_write_comp.
func (r syncRanges) wrote(file int, off, n uint64) {
	s := &r[file]
	if s.first == unwritten || off < s.first {
		s.first = off
	}
	if s.last == unwritten || off+n > s.last {
		s.last = off + n
	}
}

// synced marks file unwritten: any sync of it completed, as in fio's
// io_completed.
func (r syncRanges) synced(file int) { r[file] = writeSpan{unwritten, unwritten} }

// span returns the offset and length a sync_file_range of file covers:
// fio's first_write and last_write - first_write, length 0 when nothing
// was written since the last sync.
func (r syncRanges) span(file int) (off, n uint64) {
	s := r[file]
	return s.first, s.last - s.first
}
