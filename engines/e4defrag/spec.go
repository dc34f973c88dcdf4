package e4defrag

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are e4defrag's own options.
type Options struct {
	DonorName string
	InPlace   bool
}

// optionsOf returns job j's e4defrag options.
func optionsOf(j *jobfile.Job) *Options {
	return engines.OptionsOf(j, func() *Options { return &Options{} })
}

// Spec is the e4defrag ioengine: fio's help, its capabilities, its options
// and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "e4defrag", Help: "ext4 defrag engine", NeedsExtents: true,
	Alters:     "creates and preallocates its donor file (donorname=) and moves the file's extents",
	NewOptions: func() any { return &Options{} },
	Options: []jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "donorname", Type: jobfile.TypeString, Help: "File used as a block donor"}.
			WithSet(func(j *jobfile.Job, v string) error { optionsOf(j).DonorName = v; return nil }),
		jobfile.OptionSpec{Name: "inplace", Type: jobfile.TypeInt, Min: 0, Max: 1, Help: "Alloc and free space inside defrag event"}.
			WithSet(func(j *jobfile.Job, v string) error { optionsOf(j).InPlace = v == "1"; return nil }),
	}}}
