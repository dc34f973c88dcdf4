package equivalence

import (
	"fmt"
	"net"
)

// libaioDirect is libaio with O_DIRECT (tmpfs takes O_DIRECT).
var libaioDirect = []string{"--ioengine=libaio", "--direct=1"}

// engineRows are fio's other engines on size-based jobs: the same counts
// as fio 3.33 (total_ios, io_bytes, short_ios, drop_ios) and the same
// JSON keys.
var engineRows = []Row{
	{Name: "engines/libaio-randread-qd1", Ref: "libaio", Args: args(libaioDirect, "--rw=randread", "--bs=4k", "--size=8m"), Exact: syncDepth},
	{Name: "engines/libaio-randread-qd16", Ref: "libaio", Args: args(libaioDirect, "--rw=randread", "--bs=4k", "--size=8m", "--iodepth=16")},
	{Name: "engines/libaio-write-batch", Ref: "libaio iodepth_batch*",
		Args: args(libaioDirect, "--rw=write", "--bs=8k", "--size=8m", "--iodepth=32", "--iodepth_batch_submit=8", "--iodepth_batch_complete_min=4", "--iodepth_batch_complete_max=16")},
	{Name: "engines/libaio-userspace-reap", Ref: "libaio userspace_reap",
		Args: args(libaioDirect, "--rw=randread", "--bs=4k", "--size=8m", "--iodepth=8", "--userspace_reap", "--iodepth_batch_complete_min=0")},
	{Name: "engines/libaio-randwrite-fsync", Ref: "libaio fsync", Args: args(libaioDirect, "--rw=randwrite", "--bs=4k", "--size=4m", "--iodepth=4", "--fsync=16"),
		Exact: []string{"sync.total_ios"}},
	// fio's libaio runs each sync in its queue hook, after the writes
	// queued before it are committed: a sync follows every write reaped
	// (253 of them at iodepth 4, 241 at 16, in every run of fio 3.33 on
	// /dev/shm and on ext4), counted in the IO depths map only.
	{Name: "engines/libaio-randwrite-fsync1-qd4", Ref: "libaio fsync=1 at iodepth 4: fio's sync count",
		Args: args(libaioDirect, "--rw=randwrite", "--bs=4k", "--size=1m", "--iodepth=4", "--fsync=1"), Runs: 3,
		Exact: append([]string{"sync.lat_ns.N"}, depthMaps...), Check: syncsInFioSpread},
	{Name: "engines/libaio-randwrite-fsync1-qd16", Ref: "libaio fsync=1 at iodepth 16: fio's sync count",
		Args: args(libaioDirect, "--rw=randwrite", "--bs=4k", "--size=1m", "--iodepth=16", "--fsync=1"), Runs: 3,
		Exact: append([]string{"sync.lat_ns.N"}, depthMaps...), Check: syncsInFioSpread},
	{Name: "engines/libaio-buffered", Ref: "libaio direct=0", Args: []string{"--ioengine=libaio", "--rw=read", "--bs=16k", "--size=8m", "--iodepth=4"}},
	{Name: "engines/sync-read", Ref: "sync", Args: []string{"--ioengine=sync", "--rw=read", "--bs=4k", "--size=4m"}, Exact: syncDepth},
	{Name: "engines/sync-randwrite", Ref: "sync", Args: []string{"--ioengine=sync", "--rw=randwrite", "--bs=4k", "--size=4m", "--fsync=32"}, Exact: append([]string{"sync.total_ios"}, syncDepth...)},
	{Name: "engines/vsync-rw", Ref: "vsync", Args: []string{"--ioengine=vsync", "--rw=write", "--bs=8k", "--size=4m"}, Exact: syncDepth},
	{Name: "engines/pvsync-randread", Ref: "pvsync", Args: []string{"--ioengine=pvsync", "--rw=randread", "--bs=4k", "--size=4m"}, Exact: syncDepth},
	{Name: "engines/pvsync2-randread-hipri", Ref: "pvsync2 hipri", Args: []string{"--ioengine=pvsync2", "--direct=1", "--rw=randread", "--bs=4k", "--size=4m", "--hipri", "--hipri_percentage=50"}, Exact: syncDepth},
	{Name: "engines/mmap-randread", Ref: "mmap", Args: []string{"--ioengine=mmap", "--rw=randread", "--bs=4k", "--size=4m"}, Exact: syncDepth},
	{Name: "engines/mmap-write-fsync", Ref: "mmap", Args: []string{"--ioengine=mmap", "--rw=write", "--bs=16k", "--size=4m", "--fsync=8"}, Exact: append([]string{"sync.total_ios"}, syncDepth...)},
	{Name: "engines/falloc-randwrite", Ref: "falloc", Args: []string{"--ioengine=falloc", "--rw=randwrite", "--bs=32k", "--size=8m"}, Exact: syncDepth},
	{Name: "engines/falloc-read", Ref: "falloc (read = fallocate KEEP_SIZE)", Args: []string{"--ioengine=falloc", "--rw=read", "--bs=64k", "--size=8m"}, Exact: syncDepth},
	{Name: "engines/ftruncate-write", Ref: "ftruncate", Args: []string{"--ioengine=ftruncate", "--rw=write", "--bs=4k", "--size=4m"}, Exact: syncDepth},
	{Name: "engines/filecreate", Ref: "filecreate", Args: []string{"--ioengine=filecreate", "--nrfiles=64", "--filesize=4k", "--openfiles=1", "--create_on_open=1"}, Exact: syncDepth},
	{Name: "engines/filestat-statx", Ref: "filestat stat_type", Args: []string{"--ioengine=filestat", "--nrfiles=64", "--filesize=4k", "--stat_type=statx"}, Exact: syncDepth},
	{Name: "engines/filestat-lstat", Ref: "filestat stat_type", Args: []string{"--ioengine=filestat", "--nrfiles=32", "--filesize=8k", "--bs=4k", "--stat_type=lstat"}, Exact: syncDepth},
	{Name: "engines/filedelete", Ref: "filedelete", Args: []string{"--ioengine=filedelete", "--nrfiles=64", "--filesize=4k"}, Exact: syncDepth},
	{Name: "engines/cpuio-noop", Ref: "cpuio (FIO_NOIO: I/Os count, bytes and bw runtime stay 0)",
		Args:     []string{"--ioengine=cpuio", "--cpuload=50", "--cpuchunks=20000", "--time_based", "--runtime=1"},
		NoCounts: true, Exact: []string{"read.io_bytes", "read.runtime", "read.bw", "write.total_ios"}, Serial: true,
		// A burn cycle is wall-clock time: on a loaded machine both
		// programs overshoot it, so the cycle count is loose.
		Tol: []Tol{{Path: "read.total_ios", Rel: 0.6, Abs: 3}}},
	{Name: "engines/cpuio-exit-on-io-done", Ref: "cpuio exit_on_io_done",
		JobFile:  "[burn]\nioengine=cpuio\ncpuload=20\ntime_based\nruntime=30\nexit_on_io_done=1\n\n[io]\nioengine=psync\nrw=read\nsize=8m\nfilename=io.dat\n",
		NoCounts: true, Exact: []string{"read.io_bytes"}, Check: cpuioEndsWithIO},
	{Name: "engines/exec-sleep", Ref: "exec (%r, grace_time, std_redirect)",
		JobFile:  "[sleep]\nioengine=exec\ntime_based\nruntime=1\nprogram=/bin/sleep\narguments=%r\ngrace_time=0\n",
		NoCounts: true, Serial: true, Exact: []string{"read.io_bytes", "read.runtime"},
		// One request starts the program, then one per 50 ms wait and
		// 50 ms think until the runtime: about 11 in a second.
		Tol: []Tol{{Path: "read.total_ios", Rel: 0.4, Abs: 2}}},
	{Name: "engines/net-udp-pingpong", Ref: "net (UDP, fio's link open/close messages, pingpong)",
		JobFile: netJob(fmt.Sprintf("protocol=udp\nport=%d\npingpong=1\nsize=2m", freePort("udp")), "", "hostname=127.0.0.1"), Serial: true},
	{Name: "engines/net-tcp-pingpong", Ref: "net (two jobs over loopback, pingpong, nodelay)",
		JobFile: netJob(fmt.Sprintf("protocol=tcp\nport=%d\npingpong=1\nnodelay=1\nsize=4m", freePort("tcp")), "listen", "hostname=127.0.0.1"), Serial: true},
}

// freePort returns a loopback port of the network ("tcp" or "udp") that
// nothing holds now, so that a net row never meets another test (or
// another checkout's suite) on a fixed port. The row is built once, when
// the package starts, so the port is free moments before both programs
// use it. Where loopback cannot be bound it falls back to a fixed port,
// and the row then fails with the programs' own bind error.
func freePort(network string) int {
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 28473
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 28471
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// netJob is fio's netio.fio with the given global, receiver and sender
// options: a receiver (listen for TCP) and a sender that starts two
// seconds later (fio connects at once and would be refused before the
// receiver listens; one second was too little on a loaded machine).
func netJob(global, receiver, sender string) string {
	return "[global]\nioengine=net\nbs=4k\n" + global + "\n\n[receiver]\n" + receiver + "\nrw=read\n\n[sender]\n" +
		sender + "\nstartdelay=2\nrw=write\n"
}

// cpuioEndsWithIO checks that the exit_on_io_done burner ended with the
// I/O job (well before its 30 s runtime) under both programs.
func cpuioEndsWithIO(fio, gofio []*Outcome) []string {
	var out []string
	for _, o := range append(append([]*Outcome(nil), fio...), gofio...) {
		for _, j := range o.Doc.Jobs() {
			if ms, _ := Number(j, "job_runtime"); ms > 10000 {
				out = append(out, fmt.Sprintf("%s: job %v ran %v ms, want it to end with the I/O job", o.Program, j["jobname"], ms))
			}
		}
	}
	return out
}
