package equivalence

// offsetRows are the options that shape a random pattern's offsets and
// seeds: every I/O (file, offset, length, in order) is fio's.
var offsetRows = []Row{
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
