package iouring

import (
	"fmt"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// MaxDepth is the largest iodepth the io_uring engine accepts: the
// kernel's IORING_MAX_ENTRIES.
const MaxDepth = 32768

// Options are the io_uring options fio 3.36 to 3.42 added for NVMe
// commands and protection information, which only the engines read: FUA,
// the write and verify commands and the DEAC bit go into io_uring_cmd's
// NVMe commands (fio 3.42 takes them on io_uring and does nothing with
// them), the metadata buffer and its PI fields into io_uring's PI
// attribute or the NVMe command. io_uring_cmd holds them too (its
// EngineInfo.OptionsOf).
type Options struct {
	ReadFUA, WriteFUA bool   // readfua, writefua: FUA on NVMe reads, writes
	WriteMode         string // write_mode: write, uncor, zeroes or verify
	VerifyMode        string // verify_mode: read or compare
	Deac              bool   // deac: DEAC on Write Zeroes
	MDPerIOSize       int    // md_per_io_size: metadata bytes per I/O (0: none)
	PIAct             bool   // pi_act: the PRACT bit
	PIChk             string // pi_chk: GUARD, REFTAG and APPTAG checks
	AppTag            int    // apptag
	AppTagMask        int    // apptag_mask
}

// NewOptions returns io_uring's options with fio 3.42's defaults.
func NewOptions() *Options {
	return &Options{WriteMode: "write", VerifyMode: "read", PIAct: true, AppTag: 0x1234, AppTagMask: 0xffff}
}

// OptionsOf returns job j's io_uring options (io_uring_cmd's too).
func OptionsOf(j *jobfile.Job) *Options { return engines.OptionsOf(j, NewOptions) }

// Metadata reports whether the job asks for a separate metadata buffer
// per I/O: fio's md_per_io_size, an unsigned int, is nonzero.
func (o *Options) Metadata() bool { return uint32(o.MDPerIOSize) != 0 }

// Spec is the io_uring ioengine: fio's help, its capabilities, its
// options for NVMe and protection information, its checks and its
// opener. Its other options are Job fields in jobfile's option table: the
// run core, the SQPOLL stand-in (twthread) and the kernel stage tracer
// read them too.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "io_uring", Help: "Fast Linux native aio",
	Commit: true, TrimAtQueue: true, Cmdprio: true, SQPoll: true, Traced: true, RingFallback: true,
	MaxDepth: MaxDepth, HipriNeedsDirect: true,
	NewOptions: func() any { return NewOptions() }, Options: options(), Needs: needs}}

// noEffect is the note of an option fio 3.42 sets only in io_uring_cmd's
// NVMe commands.
const noEffect = "no effect on ioengine=io_uring, as in fio 3.42 (it goes only into io_uring_cmd's NVMe commands); " +
	"with ioengine=io_uring_cmd, set away from its default, the run is refused: gofio does not build NVMe commands"

// piNote is the note of the protection information options.
const piNote = "used with md_per_io_size, which needs a block device or NVMe namespace with protection information; " +
	"without it no effect on ioengine=io_uring, as in fio 3.42"

func flag(f func(o *Options) *bool) func(j *jobfile.Job) *bool {
	return func(j *jobfile.Job) *bool { return f(OptionsOf(j)) }
}

func integer(f func(o *Options) *int) func(j *jobfile.Job) *int {
	return func(j *jobfile.Job) *int { return f(OptionsOf(j)) }
}

func str(f func(o *Options) *string) func(j *jobfile.Job, v string) error {
	return func(j *jobfile.Job, v string) error { *f(OptionsOf(j)) = v; return nil }
}

// options are io_uring's options of fio 3.36 to 3.42, in fio 3.42's
// --enghelp order.
func options() []jobfile.OptionSpec {
	type O = jobfile.OptionSpec
	type C = jobfile.Choice
	return []jobfile.OptionSpec{
		O{Name: "readfua", Type: jobfile.TypeBool, Default: "0", Since: "3.38", Note: noEffect,
			Help: "Set FUA flag (force unit access) for all Read operations"}.WithBool(flag(func(o *Options) *bool { return &o.ReadFUA })),
		O{Name: "writefua", Type: jobfile.TypeBool, Default: "0", Since: "3.38", Note: noEffect,
			Help: "Set FUA flag (force unit access) for all Write operations"}.WithBool(flag(func(o *Options) *bool { return &o.WriteFUA })),
		O{Name: "write_mode", Type: jobfile.TypeChoice, Default: "write", Since: "3.38", Note: noEffect,
			Help: "Issue Write Uncorrectable or Zeroes command instead of Write command",
			Choices: []C{{Value: "write", Help: "Issue Write commands for write operations"},
				{Value: "uncor", Help: "Issue Write Uncorrectable commands for write operations"},
				{Value: "zeroes", Help: "Issue Write Zeroes commands for write operations"},
				{Value: "verify", Help: "Issue Verify commands for write operations"}}}.WithSet(str(func(o *Options) *string { return &o.WriteMode })),
		O{Name: "verify_mode", Type: jobfile.TypeChoice, Default: "read", Since: "3.38", Note: noEffect,
			Help: "Issue Read or Compare command in the verification phase",
			Choices: []C{{Value: "read", Help: "Issue Read commands in the verification phase"},
				{Value: "compare", Help: "Issue Compare commands in the verification phase"}}}.WithSet(str(func(o *Options) *string { return &o.VerifyMode })),
		O{Name: "md_per_io_size", Type: jobfile.TypeInt, Default: "0", Since: "3.36",
			Note: "above 0 refused at run time: it needs a block device (FS_IOC_GETLBMD_CAP) or NVMe namespace with protection information, " +
				"and gofio sends no metadata",
			Help: "Size of separate metadata buffer per I/O (Default: 0)"}.WithInt(integer(func(o *Options) *int { return &o.MDPerIOSize })),
		O{Name: "pi_act", Type: jobfile.TypeBool, Default: "1", Since: "3.36", Note: piNote,
			Help: "Protection Information Action bit (pi_act=1 or pi_act=0)"}.WithBool(flag(func(o *Options) *bool { return &o.PIAct })),
		O{Name: "pi_chk", Type: jobfile.TypeString, Since: "3.36", Note: piNote + "; fio looks for GUARD, REFTAG and APPTAG in the text",
			Help: "Control of Protection Information Checking (pi_chk=GUARD,REFTAG,APPTAG)"}.WithSet(str(func(o *Options) *string { return &o.PIChk })),
		O{Name: "apptag", Type: jobfile.TypeInt, Default: "0x1234", Since: "3.36", Note: piNote,
			Help: "Application Tag used in Protection Information field (Default: 0x1234)"}.WithInt(integer(func(o *Options) *int { return &o.AppTag })),
		O{Name: "apptag_mask", Type: jobfile.TypeInt, Default: "0xffff", Since: "3.36", Note: piNote + "; with md_per_io_size on io_uring it must be 0xffff",
			Help: "Application Tag Mask used with Application Tag (Default: 0xffff)"}.WithInt(integer(func(o *Options) *int { return &o.AppTagMask })),
		O{Name: "deac", Type: jobfile.TypeBool, Default: "0", Since: "3.39", Note: noEffect,
			Help: "Set DEAC (deallocate) flag for write zeroes command"}.WithBool(flag(func(o *Options) *bool { return &o.Deac })),
	}
}

// needs refuses a metadata buffer per I/O: fio 3.42 sends it as io_uring's
// PI attribute to a block device whose integrity capabilities
// FS_IOC_GETLBMD_CAP reports, and fails any other target. An apptag_mask
// other than 0xffff is refused first, with the message of fio 3.42's
// engine init.
func needs(j *jobfile.Job) (option, msg string) {
	o := OptionsOf(j)
	if o.Metadata() && uint32(o.AppTagMask) != 0xffff {
		return "apptag_mask", "io_uring with metadata requires an apptag_mask of 0xffff"
	}
	if o.Metadata() {
		return "md_per_io_size", fmt.Sprintf("a metadata buffer of %d bytes per I/O carries protection information, "+
			"which needs a block device with integrity metadata (FS_IOC_GETLBMD_CAP, Linux 6.17+) and io_uring's PI attribute; "+
			"gofio sends no metadata (fio 3.42 fails a regular file's job with \"failed to query protection information capabilities\")", o.MDPerIOSize)
	}
	return "", ""
}
