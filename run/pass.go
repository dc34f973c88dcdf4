package run

// budgetLeft applies fio's do_io stop rule before each I/O: the job issues
// no more once it has issued size= (or io_size=) times loops= bytes;
// the last I/O may run past it.
func (l *loop) budgetLeft() bool {
	return l.timeBased() || l.budget == 0 || l.issued < l.budget || l.replay != nil || l.verify.trimListed
}

func (l *loop) timeBased() bool { return l.job.TimeBased }

// ioSizeLeft is fio's keep_running once loops= is spent: a job with
// io_size= beyond what its passes over the files moved starts another pass,
// until fewer bytes than its largest block are left. The verify reads
// count, as in fio's io_bytes.
func (l *loop) ioSizeLeft() bool {
	s, done := l.pass.ioSize, l.issued
	if l.verify.wlog != nil {
		done += l.verify.wlog.ReadBack
	}
	return s > 0 && done < s && s-done >= l.job.MaxBS()
}

// verifyPasses runs verify, then the next pass, after each pass of a job
// with verifyEachPass while fio's keep_running would go on: loops= first,
// then io_size= past size=, which counts the verify reads and so decides
// after the pass's verify; it reports whether the last pass was verified.
func (l *loop) verifyPasses(verify func() bool) (verifiedLast bool) {
	for l.pass.verifyEachPass {
		if l.pass.passNr < l.loops {
			if !verify() {
				return false
			}
			l.nextPass()
			continue
		}
		if l.pass.ioSize <= l.pass.passSize {
			return false
		}
		if !verify() || !l.ioSizeLeft() {
			return true
		}
		l.nextPass()
	}
	return false
}

// nextPass runs the next loop over the files after a verify phase
// (verifyEachPass): the write log starts empty and reads are data again.
func (l *loop) nextPass() {
	l.verify.wlog.Reset(true)
	l.verify.trimListed = false
	l.verify.checkReads = !l.hasWrite
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
	l.pass.passNr++
	l.lastWasSync = false
	if l.job.UnlinkEachLoop && !l.job.TimeBased {
		l.unlinkEachLoop()
	}
	l.gen.NewPass()
	l.content.NewPass()
}
