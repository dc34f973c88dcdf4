package jobfile

import (
	"fmt"
	"strings"
)

// EngineInfo is one ioengine= name as gofio knows it: an engine gofio
// runs, with its capabilities and its own options, or one of fio 3.33's
// engines that gofio refuses, with the reason. Each engine gofio runs
// states its EngineInfo in its own package under engines/ and registers
// it (engines.Register, from engines/all); the engine table is what was
// registered, then the refused engines.
type EngineInfo struct {
	Name    string
	Help    string // what the engine does, as fio's ioengine list says it
	Refused string // why gofio does not run it; "" when gofio runs it
	// Options are the engine's own options, in --enghelp order (Engine is
	// set by RegisterEngine). Their values live in the engine's
	// EngineConfig (NewOptions), or in Job where several engines share
	// them or the run core acts on them.
	Options []OptionSpec
	// NewOptions returns the engine's own option values with their
	// defaults: what Job.EngineConfig holds for a job on the engine. Nil
	// for an engine with none.
	NewOptions func() any
	// OptionsOf names an engine whose fio options this one takes as well
	// (io_uring_cmd takes io_uring's, as in fio).
	OptionsOf string
	// Validate checks a parsed job on the engine as fio's engine does at
	// setup, returning the option at fault and what is wrong, or "" and
	// "". Nil checks nothing.
	Validate func(j *Job) (option, msg string)
	// Needs returns the first engine option the job sets that needs
	// hardware or kernel support gofio does not drive (NVMe commands,
	// protection information), with the capability it needs, or "" and
	// "". The job parses (--parse-only accepts it, as fio's does) and
	// UnrunError refuses it before any I/O. Nil needs nothing.
	Needs func(j *Job) (option, msg string)
	// MaxDepth is the largest iodepth the engine accepts; 0 for no limit.
	MaxDepth int
	// HipriNeedsDirect says polled I/O (hipri) needs direct=1 (io_uring).
	HipriNeedsDirect bool
	// Cmdprio says the engine sets each I/O's priority from the cmdprio
	// options (io_uring, libaio).
	Cmdprio bool
	// SQPoll says the engine's sqthread_poll=1 hands submission to a
	// kernel thread (io_uring): the job does not stamp submissions itself
	// and its requests may be traced from another thread.
	SQPoll bool
	// Traced says kernel_stages can follow the engine's requests
	// (io_uring: the tracer joins io_uring's own tracepoints).
	Traced bool
	// RingFallback says the engine needs an io_uring ring the kernel may
	// refuse, and --fallback-engine moves its jobs to another engine when
	// it does (io_uring).
	RingFallback bool
	// SyncAtQueue says fio's engine runs fsync/fdatasync synchronously in
	// its queue hook (libaio: when nothing is queued, else it answers
	// busy), so the sync has completed before the next I/O is chosen and
	// fsync=N issues one sync per N writes at any iodepth.
	SyncAtQueue bool
	// TrimAtQueue says fio's engine trims synchronously in its queue
	// hook (BLKDISCARD, then FIO_Q_COMPLETED), answering busy while
	// requests wait to be committed: io_uring and libaio. The trim
	// counts in fio's depth maps at once, as one submit and one complete.
	TrimAtQueue bool
	// Commit says fio's engine has a commit hook (io_uring, libaio,
	// null). fio marks the submit and complete depth maps at queue time
	// only for engines without one, so a synchronous null job (iodepth=1)
	// leaves both maps empty while psync fills them.
	Commit bool
	// GetEventsAll says fio's engine returns every completed event from a
	// getevents call that may wait, whatever iodepth_batch_complete_max
	// says, and none from one that may not (null's null_getevents).
	GetEventsAll bool
	// Diskless is fio's FIO_DISKLESSIO: the engine opens and lays out no
	// file before its I/O (null, cpuio, filecreate, the dir engines).
	Diskless bool
	// NoIO is fio's FIO_NOIO: requests count as I/Os but move no bytes
	// (cpuio).
	NoIO bool
	// SizedByFile says a diskless engine still sizes each file by
	// filesize= or one block when the job has no size=, as fio's
	// get_file_size does for the engines that work on names or on
	// nothing: every diskless engine but null.
	SizedByFile bool
	// OpensRW says the engine opens its files read-write even for a
	// read (falloc: a read is fallocate(KEEP_SIZE)).
	OpensRW bool
	// Maps says the engine maps its files into memory (mmap).
	Maps bool
	// NVMePassthrough says the engine sends NVMe commands through
	// io_uring (io_uring_cmd): its targets must be NVMe generic character
	// devices (/dev/ngXnY), which run checks as fio's fio_nvme_get_info
	// does, failing a job on anything else with fio's message. gofio
	// does not build the commands: a job on a real namespace is refused
	// before any I/O.
	NVMePassthrough bool
	// NeedsExtents says the engine moves a file's extents (e4defrag's
	// EXT4_IOC_MOVE_EXT): the file's blocks must be allocated before
	// its I/O, and fallocate= is left to the engine.
	NeedsExtents bool
	// Alters says what the engine does to the file system even when the
	// job only reads, which --readonly refuses ("" = nothing): fio 3.33
	// runs these engines under --readonly.
	Alters string
}

// Runs reports whether gofio runs the engine.
func (e EngineInfo) Runs() bool { return e.Refused == "" }

// Async reports whether fio's engine completes I/O after queueing it
// (fio's engines without FIO_SYNCIO): those with a commit hook.
func (e EngineInfo) Async() bool { return e.Commit }

// engineTable lists the registered engines, in registration order.
var engineTable []EngineInfo

// refusedEngines lists fio 3.33's Linux engines that gofio does not run,
// with the reason.
var refusedEngines = []EngineInfo{
	{Name: "posixaio", Help: "POSIX asynchronous IO",
		Refused: "POSIX AIO (aio_read/aio_write) is a glibc library that runs each request on a helper thread, not a system call; " +
			"gofio is built without cgo, and imitating it with goroutines would measure Go's scheduler, not glibc's AIO (use libaio or io_uring)"},
	{Name: "splice", Help: "splice/vmsplice based IO", Refused: "not implemented by gofio"},
	{Name: "netsplice", Help: "splice/vmsplice to/from the network", Refused: "not implemented by gofio"},
	{Name: "sg", Help: "SCSI generic v3 IO", Refused: "needs a SCSI generic (sg) device and fio's SCSI command layer"},
	{Name: "rdma", Help: "RDMA IO engine", Refused: "needs RDMA hardware and libibverbs/librdmacm (C libraries; gofio has no cgo)"},
	{Name: "libzbc", Help: "libzbc zoned block device engine", Refused: "needs the libzbc C library and a zoned SCSI/ATA device"},
	{Name: "rbd", Help: "Rados Block Device asynchronous IO", Refused: "needs a Ceph cluster and the librbd C library"},
	{Name: "rados", Help: "Rados IO engine", Refused: "needs a Ceph cluster and the librados C library"},
	{Name: "gfapi", Help: "Glusterfs libgfapi(sync) based engine", Refused: "needs a GlusterFS volume and the libgfapi C library"},
	{Name: "gfapi_async", Help: "Glusterfs libgfapi(async) based engine", Refused: "needs a GlusterFS volume and the libgfapi C library"},
	{Name: "libpmem", Help: "PMDK libpmem based IO engine", Refused: "needs persistent memory and the PMDK libpmem C library"},
	{Name: "pmemblk", Help: "PMDK libpmemblk based IO engine", Refused: "needs persistent memory and the PMDK libpmemblk C library"},
	{Name: "dev-dax", Help: "DAX Device based IO engine", Refused: "needs a device-DAX character device and the PMDK libpmem C library"},
	{Name: "mtd", Help: "MTD IO engine", Refused: "needs an MTD flash device and the libmtd C library"},
	{Name: "ime_psync", Help: "DDN's IME synchronous IO engine", Refused: "needs a DDN IME system and its C client library"},
	{Name: "ime_psyncv", Help: "DDN's IME synchronous IO engine using iovecs", Refused: "needs a DDN IME system and its C client library"},
	{Name: "ime_aio", Help: "DDN's IME asynchronous IO engine", Refused: "needs a DDN IME system and its C client library"},
	{Name: "http", Help: "HTTP (WebDAV/S3/Swift) IO engine", Refused: "needs libcurl and an HTTP, S3 or Swift server"},
	{Name: "libhdfs", Help: "Hadoop Distributed Filesystem engine", Refused: "needs a Hadoop cluster and the libhdfs C library (with a JVM)"},
	{Name: "libiscsi", Help: "iSCSI IO engine", Refused: "needs an iSCSI target and the libiscsi C library"},
	{Name: "nbd", Help: "Network Block Device (NBD) IO engine", Refused: "needs an NBD server and the libnbd C library"},
	{Name: "nfs", Help: "NFS IO engine", Refused: "needs an NFS server and the libnfs C library"},
	{Name: "xnvme", Help: "xNVMe based IO engine", Refused: "needs the xNVMe C library"},
	{Name: "libcufile", Help: "libcufile (GPUDirect Storage) engine", Refused: "needs an NVIDIA GPU and the cuFile C library"},
	{Name: "dfs", Help: "DAOS File System engine", Refused: "needs a DAOS cluster and its C client library"},
	{Name: "librpma_apm_client", Help: "librpma APM client engine", Refused: "needs RDMA hardware and the librpma C library"},
	{Name: "librpma_apm_server", Help: "librpma APM server engine", Refused: "needs RDMA hardware and the librpma C library"},
	{Name: "librpma_gpspm_client", Help: "librpma GPSPM client engine", Refused: "needs RDMA hardware and the librpma C library"},
	{Name: "librpma_gpspm_server", Help: "librpma GPSPM server engine", Refused: "needs RDMA hardware and the librpma C library"},
	{Name: "external", Help: "Load external engine (append name)", Refused: "loads a C shared object into the process; gofio has no cgo"},
}

// RegisterEngine adds engine e to the engine table, its options to the
// option lookups. Engines register once, before any job is parsed
// (engines.Register, from engines/all's init); a name registered twice or
// without an opener panics there.
func RegisterEngine(e EngineInfo) {
	if _, ok := EngineByName(e.Name); ok || e.Name == "" || e.Refused != "" {
		panic(fmt.Sprintf("jobfile: engine %q registered twice, unnamed or refused", e.Name))
	}
	e.Options = append([]OptionSpec(nil), e.Options...)
	for i := range e.Options {
		e.Options[i].Engine = e.Name
	}
	engineTable = append(engineTable, e)
	for i := range e.Options {
		o := &e.Options[i]
		engineOptions[e.Name] = append(engineOptions[e.Name], o)
		// A name several engines share maps to the first; engineEntries
		// binds it to the job's engine.
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			if _, ok := lookup[n]; !ok {
				lookup[n] = o
			}
		}
	}
	if e.OptionsOf != "" {
		for _, o := range engineOptions[e.OptionsOf] {
			if !o.Gofio {
				engineOptions[e.Name] = append(engineOptions[e.Name], o)
			}
		}
	}
}

// Engines returns the engine table: every engine gofio runs, then the fio
// engines it refuses.
func Engines() []EngineInfo {
	return append(append([]EngineInfo(nil), engineTable...), refusedEngines...)
}

// SupportedEngines returns the ioengine names gofio runs, in the engine
// table's order.
func SupportedEngines() []string {
	var out []string
	for _, e := range engineTable {
		if e.Runs() {
			out = append(out, e.Name)
		}
	}
	return out
}

// Engine returns the engine table's entry for the job's ioengine (the zero
// EngineInfo for a name the table lacks, which validation refuses).
func (j *Job) Engine() EngineInfo {
	e, _ := EngineByName(j.IOEngine)
	return e
}

// EngineByName returns the engine table's entry for name.
func EngineByName(name string) (EngineInfo, bool) {
	for _, t := range [][]EngineInfo{engineTable, refusedEngines} {
		for _, e := range t {
			if e.Name == name {
				return e, true
			}
		}
	}
	return EngineInfo{}, false
}

// EngineConfig returns the job's engine's own option values, made by its
// EngineInfo.NewOptions when first asked for the job's engine (the parse
// asks before it sets them), or by its OptionsOf engine's when it has
// none of its own; nil for an engine without. The engine's
// package reads it as its own type.
func (j *Job) EngineConfig() any {
	if j.engineConfigFor != j.IOEngine || j.engineConfig == nil {
		e, _ := EngineByName(j.IOEngine)
		if e.NewOptions == nil && e.OptionsOf != "" {
			// It takes that engine's options, and holds them alike.
			e, _ = EngineByName(e.OptionsOf)
		}
		if e.NewOptions == nil {
			return nil
		}
		j.engineConfig, j.engineConfigFor = e.NewOptions(), j.IOEngine
	}
	return j.engineConfig
}

// SetEngineConfig gives the job its engine's own option values, as the
// parse does through EngineInfo.NewOptions; for jobs built in code.
func (j *Job) SetEngineConfig(c any) { j.engineConfig, j.engineConfigFor = c, j.IOEngine }

// checkEngine says why gofio cannot run ioengine=name, or returns nil.
// fio's external engines (ioengine=/path/to/engine.so, or external:path)
// and names fio does not know get their own wording.
func checkEngine(name string) error {
	e, ok := EngineByName(name)
	switch {
	case ok && e.Runs():
		return nil
	case ok:
		return fmt.Errorf("engine %s is not supported by gofio: %s", name, e.Refused)
	case strings.Contains(name, "/") || strings.HasPrefix(name, "external:"):
		return fmt.Errorf("engine %s is not supported by gofio: external engines load a C shared object; gofio has no cgo", name)
	}
	return fmt.Errorf("engine %s is not a fio engine (gofio runs: %s)", name, strings.Join(SupportedEngines(), ", "))
}

// checkEngineRaw checks the engine of every ioengine= entry of a section
// before any of its options is resolved, so that a file for an engine
// gofio refuses says so rather than "bad option" on the engine's first
// option. fio, too, loads the engine when it parses ioengine=.
func checkEngineRaw(entries []rawEntry) error {
	for _, re := range entries {
		if re.key != "ioengine" || !re.has {
			continue
		}
		if err := checkEngine(strings.TrimSpace(re.value)); err != nil {
			return &Error{File: re.file, Line: re.line, Option: re.text(), Msg: err.Error()}
		}
	}
	return nil
}

// engineOptions maps an engine name to its options, in --enghelp order:
// io_uring's from the option table, the other engines' as they
// registered. An option name may belong to several engines (hipri,
// nowait, cmdprio*); each engine has its own spec, as in fio.
var engineOptions = func() map[string][]*OptionSpec {
	m := map[string][]*OptionSpec{}
	for i := range optionTable {
		if o := &optionTable[i]; o.Engine != "" {
			m[o.Engine] = append(m[o.Engine], o)
		}
	}
	return m
}()

// EngineOptions returns the options of engine name, in --enghelp order.
func EngineOptions(name string) []*OptionSpec { return engineOptions[name] }

// engineOption returns engine's option called name (or alias).
func engineOption(engine, name string) (*OptionSpec, bool) {
	for _, o := range engineOptions[engine] {
		if o.Name == name {
			return o, true
		}
		for _, a := range o.Aliases {
			if a == name {
				return o, true
			}
		}
	}
	return nil, false
}

// enginesWith returns the engines that have an option called name.
func enginesWith(name string) []string {
	var out []string
	for _, e := range engineTable {
		if _, ok := engineOption(e.Name, name); ok {
			out = append(out, e.Name)
		}
	}
	return out
}

// engineEntries returns the engine options of s bound to engine's own
// specs, or an error naming the engines that have an option engine lacks.
func engineEntries(s *section, engine string) ([]entry, error) {
	var out []entry
	for _, e := range s.engine() {
		spec, ok := engineOption(engine, e.key)
		if !ok {
			spec, ok = engineOption(engine, e.spec.Name)
		}
		if !ok {
			return nil, &Error{File: e.file, Line: e.line, Option: e.text(),
				Msg: fmt.Sprintf("option %s needs ioengine=%s (the engine here is %s)", e.spec.Name,
					strings.Join(enginesWith(e.spec.Name), " or ioengine="), engine)}
		}
		e.spec = spec
		out = append(out, e)
	}
	return out, nil
}
