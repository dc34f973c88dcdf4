package run

// budgetLeft applies fio's do_io stop rule before each I/O: the job issues
// no more once it has issued size= (or io_size=) times loops= bytes;
// the last I/O may run past it.
func (l *loop) budgetLeft() bool {
	return l.timeBased() || l.budget == 0 || l.issued < l.budget || l.replay != nil || l.trimListed
}

func (l *loop) timeBased() bool { return l.job.TimeBased }

// ioSizeLeft is fio's keep_running once loops= is spent: a job with
// io_size= beyond what its passes over the files moved starts another pass,
// until fewer bytes than its largest block are left.
func (l *loop) ioSizeLeft() bool {
	s := l.job.IOSize
	return s > 0 && l.issued < s && s-l.issued >= l.job.MaxBS()
}

// nextPass runs the next loop over the files after a verify phase
// (verifyEachPass): the write log starts empty and reads are data again.
func (l *loop) nextPass() {
	l.wlog.reset(true)
	l.trimListed = false
	l.checkReads = !l.hasWrite
	l.stopIssue = false
	l.newPass()
	l.setState()
	now := l.clock()
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.endReap()
	l.ended = l.clock()
}

// newPass starts the next pass over the files (fio's loops=).
func (l *loop) newPass() {
	l.passNr++
	if l.wlog != nil && !l.verifyEachPass && !l.job.TimeBased {
		l.wlog.reset(false) // io_size= past size=: the log keeps the last pass
	}
	l.lastWasSync = false
	if l.job.UnlinkEachLoop && !l.job.TimeBased {
		l.unlinkEachLoop()
	}
	l.gen.NewPass()
	l.content.NewPass()
}
