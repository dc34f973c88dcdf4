package run

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// blockInfos returns the block_error_percentiles record of job j over its
// one file (fio's setup in filesetup.c: one entry per trim block size of
// the file's io_size), nil without the option, or the job's error when
// that is no block or more than fio's maximum.
func blockInfos(j *jobfile.Job, ts []*target) (report.BlockInfos, *jobError) {
	if !j.BlockErrorPercentiles || len(ts) == 0 {
		return nil, nil
	}
	bs := j.BS[jobfile.DirTrim]
	if bs == 0 {
		bs = j.BSMin(jobfile.DirTrim)
	}
	var n uint64
	if bs > 0 {
		n = ts[0].region.Size / bs
	}
	if n == 0 || n > report.MaxBlockInfos {
		return nil, &jobError{job: j.Name, where: "block_error_percentiles", fn: "block_error_hist", errno: unix.EINVAL,
			err: fmt.Errorf("cannot calculate block histogram with %d trim blocks, maximum %d", n, report.MaxBlockInfos)}
	}
	return make(report.BlockInfos, n), nil
}

// blockIndex is fio's io_u_block_info: the block of the job's histogram
// an I/O of slot s starts in (an I/O over several blocks counts in the
// first only, as in fio).
func (l *loop) blockIndex(s *slot) int {
	bs := l.job.BS[jobfile.DirTrim]
	if bs == 0 {
		bs = l.job.BSMin(jobfile.DirTrim)
	}
	start := s.off - uint64(s.done) - l.files[s.file].region.Base
	return int(start / bs)
}
