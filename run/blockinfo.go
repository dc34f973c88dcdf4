package run

import "github.com/gofio/gofio/jobfile"

// blockIndex is fio's io_u_block_info: the block of the job's histogram
// an I/O of slot s starts in (an I/O over several blocks counts in the
// first only, as in fio).
func (l *loop) blockIndex(s *slot) int {
	bs := l.job.BS[jobfile.DirTrim]
	if bs == 0 {
		bs = l.job.BSMin(jobfile.DirTrim)
	}
	start := s.off - uint64(s.done) - l.files[s.file].Region.Base
	return int(start / bs)
}
