package run

import (
	"fmt"
	"io"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/zbd"
	"golang.org/x/sys/unix"
)

// planZones sets up zonemode=zbd for the planned jobs, as fio's
// zbd_init_files and zbd_setup_files do before any job runs: one set of
// emulated zones per file, shared by every zbd job on it for the whole
// run, each job's region aligned to whole zones (fio's notes about it go
// to warn), and the job's zone state. A target fio cannot emulate zones
// on (missing, or smaller than a zone) fails its job with EINVAL, as
// fio's zbd_create_zone_info, and nothing of it is laid out.
func planZones(runs []*jobRun, warn io.Writer) error {
	devs := map[string]*zbd.Device{}
	for _, jr := range runs {
		j := jr.job
		if j.Zones.Mode != "zbd" || jr.failed != nil || jr.replay != nil {
			continue
		}
		if err := zbd.CheckJob(j); err != nil {
			return fmt.Errorf("%s: zonemode=zbd: %w", j.Name, err)
		}
		cfg := zbd.NewConfig(j)
		zj := zbd.NewJob(cfg)
		for _, t := range jr.targets {
			real := t.RealSize
			dev := devs[t.Path]
			if dev == nil {
				var err error
				if dev, err = zbd.NewDevice(t.Path, real, j.Zones.Size, j.Zones.Capacity, j.Zones.MaxOpen); err != nil {
					jr.failed = &joberr.Error{Job: j.Name, Where: t.Label, Op: "zonemode=zbd", Fn: "zbd_create_zone_info() failed", Errno: unix.EINVAL, Err: err}
					break
				}
				devs[t.Path] = dev
			}
			r := &t.Region
			base, size, notes, err := cfg.Align(dev, t.Path, j.Zones.Size, r.Base, r.Size, real)
			for _, n := range notes {
				if warn != nil {
					fmt.Fprintln(warn, n)
				}
			}
			if err == nil {
				var bs [3]uint64
				for d := range bs {
					bs[d] = cfg.MinBS[d]
				}
				trimRange := j.BSMin(2) != j.BSMax(2) || len(j.BSSplit[2]) > 0
				err = cfg.CheckBS(t.Path, dev.ZoneSize(), bs, trimRange, j.RW.HasTrim())
			}
			if err == nil {
				err = zj.AddFile(dev, t.Path, base, size, real, j.Zones.MaxOpen)
			}
			if err != nil {
				return fmt.Errorf("%s: zonemode=zbd: %w", j.Name, err)
			}
			r.Base, r.Size = base, size
			if r.End < base+size {
				r.End = base + size
			}
		}
		if jr.failed == nil {
			jr.zones = zj
		}
	}
	return nil
}

// zoneError ends the job when its zones refused an I/O with an error
// (fio's td_verror in zbd_adjust_block); a plain end of what the zones
// can take is no error.
func (l *loop) zoneError() {
	if l.zones == nil || l.zones.Err == nil {
		return
	}
	l.fail(int(l.zones.Err.Errno), "zbd_adjust_block", l.zones.Err)
}

// quiesceZones is fio's io_u_quiesce for the zones of a zbd job: what is
// queued is submitted and everything in flight is reaped (reap closes the
// zones the writes filled and releases their zone locks; their completion
// items run later). It reports whether any I/O was in flight. A
// synchronous engine's job needs it on a shared file only, before it
// waits for another job's zone: its I/O has completed, but its slots may
// not have been reaped yet.
func (l *loop) quiesceZones() bool {
	l.commitQueued()
	if l.pN > 0 {
		l.submit()
	}
	any := l.inflight > 0
	for l.inflight > 0 && !l.fatal && (l.hang == nil || !l.hangCheck()) {
		l.reap(l.inflight)
	}
	return any
}

// zonesReaped is fio's zbd_put_io for the n completions just reaped: each
// write that filled its zone closes it, and an I/O that holds its zone's
// lock (a shared file) releases it. The remainder of a short I/O, which
// is requeued, goes out without the lock.
func (l *loop) zonesReaped(n int) {
	for _, c := range l.cqes[:n] {
		s := &l.slots[c.Slot]
		if s.op == engines.OpWrite || s.zone {
			l.zones.End(int(s.file), s.dir, s.off, uint64(s.length), s.zone)
			s.zone = false
		}
	}
}
