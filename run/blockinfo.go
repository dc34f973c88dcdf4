package run

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// blockInfos returns the block_error_percentiles record of job j over its
// one file (fio's setup in filesetup.c: one entry per trim block size of
// the file's io_size), nil without the option, or the job's error when
// that is no block or more than fio's maximum.
func blockInfos(j *jobfile.Job, ts []*target.Target) (report.BlockInfos, *joberr.Error) {
	if !j.BlockErrorPercentiles || len(ts) == 0 {
		return nil, nil
	}
	bs := j.BS[jobfile.DirTrim]
	if bs == 0 {
		bs = j.BSMin(jobfile.DirTrim)
	}
	var n uint64
	if bs > 0 {
		n = ts[0].Region.Size / bs
	}
	if n == 0 || n > report.MaxBlockInfos {
		return nil, &joberr.Error{Job: j.Name, Where: "block_error_percentiles", Fn: "block_error_hist", Errno: unix.EINVAL,
			Err: fmt.Errorf("cannot calculate block histogram with %d trim blocks, maximum %d", n, report.MaxBlockInfos)}
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
	start := s.off - uint64(s.done) - l.files[s.file].Region.Base
	return int(start / bs)
}
