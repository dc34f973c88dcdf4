package run

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/sched"
	"golang.org/x/sys/unix"
)

// complete is the completion item: stamp, account latency and bytes,
// requeue the remainder of a short I/O or record an error. It returns true
// when the slot is free for its next heavy item, which the caller queues
// (drive), and false when the slot is requeued or done with here.
func (l *loop) complete(it sched.Item, now int64) bool {
	si := it.Slot
	s := &l.slots[si]
	// fio accounts a completion once the ramp is over, whenever it was
	// issued: the I/O in flight at the end of ramp_time adds its bytes
	// and latencies but not total_ios, which it was counted in before
	// the reset. Bytes count during the ramp too, and are reset with it.
	acct := !l.ramping
	if acct {
		w := uint64(it.Wait)
		if l.tw != nil {
			w += uint64(l.tw.Wait(si))
		}
		l.res.TWWait.Add(w)
		l.res.TWWaitHist.Add(w)
	}
	res := s.res
	switch {
	case res == -int32(unix.EAGAIN) && (l.stop.Load() || l.kill.Load()):
		// The run is stopping (a signal, or another job's exitall): an
		// I/O the engine gave back unfinished ends here, neither retried
		// nor an error, as fio's terminate interrupts a blocked engine.
		// Retrying would keep a receiver that waits for data (net, UDP)
		// alive for up to maxEAGAINRetries receive timeouts after ^C.
		l.stopIssue = true
		if !s.ramp && !l.ramping && l.res.Dirs[s.dir].TotalIOs > 0 && s.done == 0 {
			l.res.Dirs[s.dir].TotalIOs--
		}
		l.q.AddHeavy(si, now)
		return false
	case res == -int32(unix.EAGAIN) && s.retries < maxEAGAINRetries:
		// Resubmit what is left, as for a short I/O.
		s.retries++
		l.eagain++
		s.requeue = true
		l.q.AddHeavy(si, now)
		return false
	case res < 0:
		if !l.failedIO(s, res) {
			return false
		}
	case s.op.IsSync():
		l.syncDone(s, now, s.start, acct)
	default:
		if l.lastWasSync && now-it.Wait >= l.syncedAt {
			// Reaped (now less its wait) after the last sync done at
			// queue, if any: fio's io_completed clears it.
			l.lastWasSync = false
		}
		if !l.transferred(s, si, now, acct) {
			return false
		}
	}
	return !l.fatal
}

// syncDone completes a sync that ended at now, as fio's io_completed
// does: lastWasSync set, sync_file_range's span of writes cleared, and
// with acct the sync counted, with its latency from from.
func (l *loop) syncDone(s *slot, now, from int64, acct bool) {
	l.lastWasSync = true
	if l.sfr != nil {
		l.sfr.Synced(int(s.file))
	}
	if acct {
		v := uint64(now - from)
		l.res.SyncIOs++
		l.res.SyncLat.Add(v)
		l.res.SyncHist.Add(v)
	}
}

// failedIO handles an I/O that returned error res: the job fails where the
// engine says it failed, or the error goes through continue_on_error
// (ioError). It returns false when the job failed and the slot is done
// with.
func (l *loop) failedIO(s *slot, res int32) bool {
	if f, ok := l.eng.(engines.Failer); ok {
		if fn, err := f.Failure(); err != nil {
			// The engine says what failed (net's connect, with host
			// and port): the job fails there, as fio's does when it
			// opens the job's file.
			l.fail(int(-res), fn, err)
			return false
		}
	}
	fn := "io_u error"
	if s.op == engines.OpTrim || s.op.IsSync() && l.syncAtQueue {
		fn = "td_io_queue" // run in fio's queue hook: every trim, libaio's syncs
	}
	l.ioError(s, int(-res), fn)
	return true
}

// transferred handles an I/O that moved data: an engine that ended the job,
// a target that shrank or a synchronous engine's read past a --readonly
// job's short file (fio's "full resid"), a short I/O requeued for the
// rest; otherwise it counts the bytes and, after the ramp, accounts the
// I/O (accountIO). It returns false when the slot was requeued or stopped
// and must not be freed here.
func (l *loop) transferred(s *slot, si uint32, now int64, acct bool) bool {
	got := uint32(s.res)
	rest := s.length - s.done
	if got > rest {
		got = rest
	}
	ds := &l.res.Dirs[s.dir]
	if got == 0 && l.ender != nil && l.ender.Ended() {
		// The engine ended the job (a UDP receiver got fio's close
		// message): this request moved nothing and is not counted,
		// and nothing more is issued.
		l.stopIssue = true
		if !s.ramp && !l.ramping && ds.TotalIOs > 0 {
			ds.TotalIOs--
		}
		l.q.AddHeavy(si, now)
		return false
	}
	if got == 0 && rest > 0 && s.off < l.files[s.file].Region.End && (l.syncIO || !l.job.ReadOnly || s.off < l.files[s.file].CurSize) {
		// Nothing moved short of the end of the target: it shrank or
		// went away, or a --readonly job reads past the end of a file
		// it did not lay out. fio fails such an I/O with EIO ("full
		// resid") where its engine completed it synchronously
		// (io_queue_event); an asynchronous engine's (io_completed) it
		// counts as an I/O of 0 bytes, as below, which gofio does for
		// the reads past the end of a --readonly job's short file
		// only, reporting a target that shrank.
		l.ioError(s, int(unix.EIO), "full resid")
		return true
	}
	if !l.noIO {
		ds.IOBytes += uint64(got)
		l.bytesDone[s.dir] += uint64(got)
	}
	if got < rest && got > 0 {
		s.done += got
		s.off += uint64(got)
		if acct {
			ds.ShortIOs++
		}
		if s.off < l.files[s.file].Region.End {
			s.requeue = true
			l.q.AddHeavy(si, now)
			return false
		}
	}
	if l.sfr != nil && s.op == engines.OpWrite {
		l.sfr.Wrote(int(s.file), s.off, uint64(got))
	}
	l.thinkTime.thinkDone++
	if l.latTarget.search != nil {
		l.latCompleted(s, now-s.start, now)
	}
	if acct && l.res.Blocks != nil && s.dir == jobfile.DirTrim {
		l.res.Blocks.Trimmed(l.blockIndex(s))
	}
	if acct {
		l.accountIO(s, si, ds, now)
	}
	if l.verify.ver != nil && s.done+got == s.length {
		l.completeData(s, si) // it logs or checks for verify= alone
	}
	return true
}

// accountIO accounts a completed data I/O as fio's account_io_completion
// does: completion and total latency with their histograms, max_latency,
// the priority's stats, the latency buckets, kernel stages, samples and
// logs.
func (l *loop) accountIO(s *slot, si uint32, ds *report.DirStats, now int64) {
	l.iosDone[s.dir]++
	clat := uint64(now - s.issue)
	lat := uint64(now - s.start)
	if !l.noClat {
		ds.Clat.Add(clat)
		ds.ClatHist.Add(clat)
	}
	if !l.noLat {
		ds.Lat.Add(lat)
		ds.LatHist.Add(lat)
		// fio's account_io_completion checks max_latency
		// with the total latency, once it is logged.
		if m := l.job.MaxLatency[s.dir]; m > 0 && int64(lat) > int64(m) {
			l.latFatal(s, int64(lat), int64(m))
		}
	}
	if int(s.prioIdx) < len(ds.Prios) {
		// fio's add_stat_prio_sample: the clat, or with
		// lat_percentiles=1 the total latency.
		switch p := &ds.Prios[s.prioIdx]; {
		case l.job.LatPercentiles && !l.noLat:
			p.Lat.Add(lat)
			p.Hist.Add(lat)
		case !l.job.LatPercentiles && !l.noClat:
			p.Lat.Add(clat)
			p.Hist.Add(clat)
		}
	}
	markLatency(l.res, clat)
	if l.kt != nil {
		l.kt.Reap(uint64(si), s.start, now)
	}
	if l.sample != nil {
		l.sample(s.dir, s.slat, int64(clat), int64(lat))
	}
	if l.logs != nil {
		l.logs.Completed(ds, uint64((now-l.statsStart)/1000000), s.dir, clat, lat, uint64(s.length), s.off-uint64(s.done), uint64(now-int64(clat)-l.statsStart))
	}
	if l.open != nil {
		l.open.Complete(si, s.dir, now)
	}
}
