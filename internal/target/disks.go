package target

import (
	"os"
	"path/filepath"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Disks samples /sys/block statistics of the disks under a run's
// targets, as fio's disk_util does: a file's filesystem disk or the device
// itself, a partition counted as its whole disk, each disk once.
type Disks struct {
	samplers []*blockdev.DiskSampler
	seen     map[string]bool
}

// Add takes the first reading of every disk under job j's targets ts that
// no earlier Add read. Targets on tmpfs or other diskless filesystems,
// and null-engine jobs, have none. A disk whose statistics cannot be read
// is left out.
func (ds *Disks) Add(j *jobfile.Job, ts []*Target) {
	if j.Engine().Diskless || j.NoDiskUtil {
		return
	}
	if ds.seen == nil {
		ds.seen = map[string]bool{}
	}
	for _, t := range ts {
		p := t.Path
		if _, err := os.Stat(p); err != nil {
			p = filepath.Dir(p) // laid out later: its directory's disk
		}
		name, ok := blockdev.DiskFor(p)
		if !ok || ds.seen[name] {
			continue
		}
		ds.seen[name] = true
		if s, err := blockdev.StartDiskSampler(name); err == nil {
			ds.samplers = append(ds.samplers, s)
		}
	}
}

// diskStats turns blockdev's reading into the report's disk_util entry.
func diskStats(d blockdev.DiskUtil) report.DiskStats {
	return report.DiskStats{
		Name:    d.Name,
		ReadIOs: d.IOs[0], WriteIOs: d.IOs[1],
		ReadSectors: d.Sectors[0], WriteSectors: d.Sectors[1],
		ReadMerges: d.Merges[0], WriteMerges: d.Merges[1],
		ReadTicks: d.Ticks[0], WriteTicks: d.Ticks[1],
		InQueue: d.InQueue,
		Util:    d.Util,
	}
}

// Stop takes the second reading and returns the deltas, in the order the
// disks were first met.
func (ds *Disks) Stop() []report.DiskStats {
	var out []report.DiskStats
	for _, s := range ds.samplers {
		if d, err := s.Stop(); err == nil {
			out = append(out, diskStats(d))
		}
	}
	return out
}
