package iogen

// This file holds the checks of a job's offsets made before any I/O.

import (
	"fmt"

	"github.com/gofio/gofio/jobfile"
)

// offsetAlign returns the unit offsets are chosen in: the smallest
// blockalign (or, without it, the smallest block size) over the
// directions the job issues.
func offsetAlign(j *jobfile.Job) (uint64, error) {
	var m uint64
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		if !usesDir(j.RW, d) {
			continue
		}
		a := j.BlockAlign[d]
		if a == 0 {
			a = j.BSMin(d)
		}
		if a == 0 {
			return 0, fmt.Errorf("%s: no block size for direction %s", j.Name, d)
		}
		if m == 0 || a < m {
			m = a
		}
	}
	return m, nil
}

// CheckOffsets refuses, before any job starts, what NewOffsets would
// refuse at the job's start: a direction without a block size, a region
// smaller than the offset unit, an unknown random_distribution.
func CheckOffsets(j *jobfile.Job, regions []Region) error {
	a, err := offsetAlign(j)
	if err != nil {
		return err
	}
	for _, r := range regions {
		if r.Size < a {
			return fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.Size, a)
		}
	}
	switch k := j.RandomDistribution.Kind; {
	case !j.RW.IsRandom(), k == "", k == "random", k == "zipf", k == "pareto", k == "normal", k == "zoned", k == "zoned_abs":
		return nil
	}
	return distError(j)
}

func distError(j *jobfile.Job) error {
	return fmt.Errorf("%s: random_distribution=%s is not supported", j.Name, j.RandomDistribution.Kind)
}
