package target

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// BlockInfos returns the block_error_percentiles record of job j over its
// one file (fio's setup in filesetup.c: one entry per trim block size of
// the file's io_size), nil without the option, or the job's error when
// that is no block or more than fio's maximum.
func BlockInfos(j *jobfile.Job, ts []*Target) (report.BlockInfos, *joberr.Error) {
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
