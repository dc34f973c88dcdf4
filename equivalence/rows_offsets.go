package equivalence

// offsetRows are the options that shape a random pattern's offsets and
// seeds, where every I/O (file, offset, length, in order) is fio's, and
// max_latency, which ends a job at the same I/O as fio.
var offsetRows = []Row{
	{Name: "options/max-latency", Ref: "max_latency: 1 us ends a randread job at its first I/O with ETIMEDOUT (err=110); 10 s for reads and 1 us for writes ends a randrw job at its first write",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\n[r]\nrw=randread\nmax_latency=1\n[rw]\nrw=randrw\nmax_latency=10s,1\n",
		Exit:    2, Exact: append([]string{"error"}, syncDepth...)},
	{Name: "options/open-hints", Ref: "pre_read (and the invalidate it turns off), fadvise_hint, write_hint on a buffered file, nice, lockmem: the same I/O as fio",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\n[pr]\nrw=randread\npre_read=1\nfadvise_hint=sequential\nlockmem=8m\n[wh]\nrw=write\nwrite_hint=short\nfadvise_hint=0\nnice=3\n",
		Exact:   syncDepth},
	{Name: "options/process-cpu-clock", Ref: "cpumask (bit 0: CPU 0), clocksource, disable_bw_measurement (no per-I/O bw log lines; iops lines stay) and gtod_reduce (neither): the same I/O and logs as fio",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\n[mask]\ncpumask=1\nclocksource=cpu\n[nobw]\ndisable_bw=1\nclocksource=clock_gettime\nwrite_bw_log=nobw\nwrite_iops_log=nobw\n[reduce]\ngtod_reduce=1\nwrite_bw_log=red\nwrite_iops_log=red\n",
		Exact:   syncDepth},
	{Name: "options/uid-gid", Ref: "uid, gid: as nobody, jobs reading and writing a file root laid out in the scratch directory (root's, 0700) fail at open with EACCES (err=13) before any I/O, as in fio (run.TestCreds has nobody read a file it may reach); with cgroup= too, nobody's mkdir of the cgroup fails first, with EACCES (run.TestCgroupAfterCreds)",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\nfilename=cred.dat\n[lay]\nrw=write\n[r]\nstonewall\nrw=read\nuid=65534\ngid=65534\n[w]\nstonewall\nrw=write\nuid=65534\ngid=65534\n[cg]\nstonewall\nrw=read\nuid=65534\ngid=65534\ncgroup=gofio-eq-uid-cgroup\n",
		Exit:    2, Exact: []string{"error"}, Root: "setuid and setgid to nobody (CAP_SETUID, CAP_SETGID), and a cgroup under /sys/fs/cgroup"},
	{Name: "options/cgroup", Ref: "cgroup, cgroup_nodelete=0: the job runs in a cgroup made under the blkio (or cgroup2) mount and removed after it: the same I/O as fio",
		JobFile: "[cg]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\ncgroup=gofio-eq-cgroup\ncgroup_nodelete=0\n", Exact: syncDepth,
		Root: "a cgroup made under /sys/fs/cgroup"},
	{Name: "options/cgroup-weight", Ref: "cgroup_weight: fio writes it to the cgroup's blkio.weight, which a v1 blkio hierarchy without CFQ (Linux 5.0+) lacks and cgroupfs will not create: both fail the job at setup with EACCES (err=13), the cgroup made and removed; on cgroup2 both refuse the weight",
		JobFile: "[cgw]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\ncgroup=gofio-eq-cgroup-w\ncgroup_weight=500\n", Exit: 1, Exact: []string{"error"}},
	{Name: "options/exec-pre-post", Ref: "exec_prerun, exec_postrun: run with sh -c around the job, their output saved in JOB.prerun.txt and JOB.postrun.txt (the file comparison checks both exist with the same size)",
		JobFile: "[j]\nioengine=psync\nbs=4k\nsize=256k\nrw=read\nexec_prerun=echo pre\nexec_postrun=sh -c 'ls j.0.0'\n", Exact: syncDepth},
	{Name: "options/ioscheduler-file", Ref: "ioscheduler on a file of a file system without a block device (tmpfs): nothing to switch, the job runs as in fio",
		JobFile: "[j]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\nioscheduler=none\n", Exact: syncDepth},
	{Name: "options/uring-uncached-tmpfs", Ref: "io_uring's uncached=1 on buffered reads of a tmpfs file: tmpfs takes neither fio 3.33's 0x40 (RWF_ATOMIC since Linux 6.11) nor gofio's RWF_DONTCACHE, so both fail the job with EOPNOTSUPP (err=95) at the first read (on ext4 fio fails the same way and gofio reads uncached: DIFFERENCES.md)",
		Args: []string{"--ioengine=io_uring", "--uncached=1", "--rw=randread", "--bs=4k", "--size=256k"}, Exit: 1, Exact: []string{"error"}, NoCounts: true},
	{Name: "options/mem", Ref: "mem= (iomem=): shm, mmapshared, mmap:FILE, malloc back the buffers; the same I/O as fio, and no buffer file left",
		JobFile: "[global]\nioengine=psync\nbs=4k\nsize=256k\nrw=randrw\n[shm]\nmem=shm\n[shared]\nmem=mmapshared\n[file]\nmem=mmap:buf.mm\n[malloc]\niomem=malloc\nhugepage-size=2m\n",
		Exact:   syncDepth},
	{Name: "offsets/random-share-sequencer-seeds", Ref: "percentage_random (one and per direction), rw_sequencer=identical, allrandrepeat with randrepeat=0, offset_align",
		JobFile: offsetJob, Check: sameIologIO(offsetLogs...)},
}

// offsetLogs are the iologs of offsetJob's jobs.
var offsetLogs = []string{"pr50.log", "pr.log", "pr0.log", "ident.log", "allr.log", "align.log"}

// offsetJob has one job per option, each writing its iolog.
var offsetJob = "[global]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\n" +
	"[pr50]\npercentage_random=50\nwrite_iolog=pr50.log\n" +
	"[pr]\nrw=randrw\npercentage_random=20,80\nwrite_iolog=pr.log\n" +
	"[pr0]\npercentage_random=0\nwrite_iolog=pr0.log\n" +
	"[ident]\nrw=randread:4\nrw_sequencer=identical\nwrite_iolog=ident.log\n" +
	"[allr]\nrandrepeat=0\nallrandrepeat=1\nrw=randrw\nbsrange=4k-16k\nwrite_iolog=allr.log\n" +
	"[align]\nsize=1m\noffset=10%\noffset_align=64k\nwrite_iolog=align.log\n"
