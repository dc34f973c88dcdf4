package mmap

import (
	"strconv"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are mmap's own options.
type Options struct {
	THP bool // thp: madvise(MADV_HUGEPAGE) the mapping
}

// Spec is the mmap ioengine: fio's help, its capabilities, its options and
// its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "mmap", Help: "Memory mapped IO", Maps: true,
	NewOptions: func() any { return &Options{} },
	Options: []jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "thp", Type: jobfile.TypeInt, Help: "Memory Advise Huge Page"}.WithSet(func(j *jobfile.Job, v string) error {
			n, _ := strconv.Atoi(v)
			j.EngineConfig().(*Options).THP = n != 0
			return nil
		}),
	}}}
