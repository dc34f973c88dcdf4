package equivalence

import (
	"fmt"
	"strings"
)

// fileRows are fio's file-setup options: how files are laid out, created,
// appended to, synced and unlinked, with the same counts and the same
// files as fio 3.33.
var fileRows = []Row{
	{Name: "files/filename-then-nrfiles", Ref: "filename=fa:fb:fc then nrfiles=2 on fio's unsorted command line: the first two files, 48 KiB each",
		Args: args(psync, "--rw=write", "--bs=4k", "--size=96k", "--filename=fa:fb:fc", "--nrfiles=2"), Exact: syncDepth},
	{Name: "files/filename-global-and-job", Ref: "filename= in [global] and in the job: fio's str_filename_cb adds the job's file to the global's (fa and fb)",
		JobFile: "[global]\nioengine=psync\nrw=write\nbs=4k\nsize=96k\nfilename=fa\n[j]\nfilename=fb\n", Exact: syncDepth},
	{Name: "files/write-setup", Ref: "overwrite, create_fsync, fsync_on_close, unlink_each_loop, unique_filename, disk_util",
		Args: args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--nrfiles=2", "--loops=2", "--overwrite=1", "--create_fsync=0",
			"--fsync_on_close=1", "--unlink_each_loop=1", "--unique_filename=0", "--disk_util=0"),
		Exact: syncDepth},
	{Name: "files/create-append", Ref: "create_only (files laid out, no I/O), create_on_open (no layout), file_append (I/O past the end)",
		JobFile: "[global]\nioengine=psync\nbs=4k\n" +
			"[only]\nrw=read\nsize=256k\nfilename=a.dat\ncreate_only=1\n" +
			"[open]\nrw=write\nsize=128k\nfilename=b.dat\ncreate_on_open=1\n" +
			"[append]\nstonewall\nrw=randrw\nsize=128k\nfilename=a.dat\nfile_append=1\n"},
	{Name: "files/service-type", Ref: "file_service_type: every kind of fio 3.33, with :N and a distribution's value and center; the I/O lines of write_iolog are fio's",
		JobFile: fileServiceJob, Check: sameIologIO(fileServiceLogs...)},
}

// fileServiceLogs are the iologs of fileServiceJob's jobs, one per
// file_service_type.
var fileServiceLogs = []string{"rnd.log", "rrw.log", "seq.log", "rr.log", "zipf.log", "zipfseq.log", "pareto.log", "gauss.log", "normc.log"}

// fileServiceJob runs each file_service_type over four 64 KiB files,
// each job writing its iolog.
var fileServiceJob = "[global]\nioengine=psync\nbs=4k\nsize=256k\nnrfiles=4\nrw=randread\n" +
	"[rnd]\nfile_service_type=random:2\nwrite_iolog=rnd.log\n" +
	"[rrw]\nrw=randrw\nfile_service_type=random\nwrite_iolog=rrw.log\n" +
	"[seq]\nrw=write\nfile_service_type=sequential\nwrite_iolog=seq.log\n" +
	"[rr]\nfile_service_type=roundrobin:3\nwrite_iolog=rr.log\n" +
	"[zipf]\nfile_service_type=zipf:1.2\nwrite_iolog=zipf.log\n" +
	"[zipfseq]\nrw=read\nfile_service_type=zipf\nwrite_iolog=zipfseq.log\n" +
	"[pareto]\nfile_service_type=pareto:0.3:0.5\nwrite_iolog=pareto.log\n" +
	"[gauss]\nfile_service_type=gauss:20\nwrite_iolog=gauss.log\n" +
	"[normc]\nfile_service_type=normal:10:0.2\nwrite_iolog=normc.log\n"

// iologIO keeps the I/O lines of a version 3 iolog, times dropped: which
// file, offset and length each I/O had, in order. The open and close
// lines are left out: fio closes a finished file when its next I/O
// needs another, gofio keeps its files open to the end.
func iologIO(log []byte) []string {
	var out []string
	for _, l := range iologBody(log) {
		if f := strings.Fields(l); len(f) == 4 {
			out = append(out, l)
		}
	}
	return out
}

// sameIologIO returns a Check that both programs' iologs names hold the
// same I/O lines.
func sameIologIO(names ...string) func(fio, gofio []*Outcome) []string {
	return eachLog(names, iologIO, func(run int, name string, f, g []string) []string {
		var diffs []string
		if len(f) == 0 {
			diffs = append(diffs, fmt.Sprintf("run %d: fio's %s has no I/O", run, name))
		}
		return append(diffs, seqDiffs(run, name, "I/O", f, g)...)
	})
}
