package zbd

import (
	"syscall"

	"github.com/gofio/gofio/jobfile"
)

// Adjust is fio's zbd_adjust_block for the I/O of n bytes at off that the
// job's generator chose in file fi, whose region starts at base: a read
// moves below the write pointer of a zone with data (or is accepted as is
// with read_beyond_wp), a write moves to the write pointer of an open
// zone, resetting a full zone or one that zone_reset_threshold and
// zone_reset_frequency pick, and a random trim goes to a zone with data
// and resets it. ok is false when no zone can take the I/O, which ends the
// job's I/O as fio's io_u_eof; j.Err then says why when it is an error.
// When ok, the device stays locked until Commit says what was issued, and
// on a shared device the I/O's zone stays locked (Holds) until End.
func (j *Job) Adjust(fi int, base uint64, dir jobfile.Dir, off, n uint64) (uint64, uint64, bool) {
	d := j.files[fi].dev
	d.lock()
	off, n, ok := j.adjust(fi, base, dir, off, n)
	if !ok {
		d.unlock()
	}
	return off, n, ok
}

// Commit is fio's zbd_queue_io for the I/O Adjust last accepted in file
// fi, n bytes at off (n 0: not issued after all, and its zone's lock is
// released): a write moves its zone's write pointer and, reaching the
// zone's capacity on a device of its own with a synchronous engine
// (fio's FIO_Q_COMPLETED), closes the zone; then the device is unlocked.
func (j *Job) Commit(fi int, dir jobfile.Dir, off, n uint64) {
	d := j.files[fi].dev
	if d.shared {
		j.commitShared(fi, dir, off, n)
		return
	}
	if dir == jobfile.DirWrite && n != 0 {
		j.advance(d, off, n)
	}
}

// commitShared is Commit on a shared device.
func (j *Job) commitShared(fi int, dir jobfile.Dir, off, n uint64) {
	d := j.files[fi].dev
	held := j.Holds(fi, dir)
	switch {
	case n == 0:
		if held {
			j.unlockZone(d, d.zoneIdx(off))
		}
	case dir == jobfile.DirWrite:
		j.advance(d, off, n)
	}
	if n != 0 && j.async && held {
		j.files[fi].inflight++
		d.inflight++
	}
	d.mu.Unlock()
}

// advance moves the write pointer of the zone of a write of n bytes at
// off, and closes the zone it fills where the write does not close it
// at its completion (closesAtEnd).
func (j *Job) advance(d *Device, off, n uint64) {
	zi := d.zoneIdx(off)
	z := &d.zones[zi]
	end := min(off+n, z.capEnd())
	if z.wp <= end {
		d.swd += end - z.wp
		d.wpSwd += end - z.wp
	}
	z.wp = end
	if !j.closesAtEnd(d) && off+n >= z.capEnd() {
		j.closeZone(d, zi)
	}
}

// adjust is Adjust with the device locked. Where it accepts the I/O, it
// returns holding the lock of the I/O's zone, as fio's; where it does
// not, it holds none.
func (j *Job) adjust(fi int, base uint64, dir jobfile.Dir, off, n uint64) (uint64, uint64, bool) {
	f := &j.files[fi]
	d := f.dev
	if dir == jobfile.DirRead && j.cfg.ReadBeyondWP {
		return off, n, true
	}
	minBS := j.cfg.MinBS[dir]
	zi := d.zoneIdx(off)
	orig := zi
	j.lockZone(d, zi)
	switch dir {
	case jobfile.DirRead:
		z := &d.zones[zi]
		rng := z.wp - z.start
		if rng < minBS || !j.cfg.Random && off+minBS > z.wp {
			j.unlockZone(d, zi)
			var ok bool
			if zi, ok = j.findZone(f, minBS, zi); !ok {
				return 0, 0, false
			}
			z = &d.zones[zi]
			rng = z.wp - z.start
			if !j.cfg.Random {
				off = z.start
			}
		}
		switch {
		case rng <= n:
			off = z.start
		case j.cfg.Random:
			off = z.start + ((off-d.zones[orig].start)%(rng-n))/minBS*minBS
		}
		if l := min(n, z.wp-off) / minBS * minBS; l < n {
			n = l
		}
		return off, n, true
	case jobfile.DirWrite:
		return j.adjustWrite(f, base, zi, off, n, minBS)
	case jobfile.DirTrim:
		z := &d.zones[zi]
		if j.cfg.Random && z.wp <= z.start {
			j.unlockZone(d, zi)
			var ok bool
			if zi, ok = j.findZone(f, 1, zi); !ok {
				return 0, 0, false
			}
			off = d.zones[zi].start
		}
		// fio's zbd_do_io_u_trim: the trim resets its zone.
		if off != d.zones[zi].start {
			j.unlockZone(d, zi)
			j.fail(syscall.EINVAL, "Trim offset not at zone start (%d)", off)
			return 0, 0, false
		}
		j.resetZone(d, zi)
		return off, n, true
	}
	return off, n, true
}

// adjustWrite is the write case of fio's zbd_adjust_block. The caller
// holds the device's mutex and zone zi's lock, which it keeps when it
// accepts the write in zone zi; otherwise the zone that takes the write
// is the one locked, or none.
func (j *Job) adjustWrite(f *file, base uint64, zi uint32, off, n, minBS uint64) (uint64, uint64, bool) {
	d := f.dev
	if n > d.zoneSize {
		j.unlockZone(d, zi)
		j.fail(syscall.EINVAL, "I/O buflen exceeds zone size")
		return 0, 0, false
	}
	if !j.openZone(f, zi) {
		j.unlockZone(d, zi)
		var ok bool
		if zi, ok = j.convertToOpenZone(f, base, off, minBS); !ok {
			return 0, 0, false
		}
	}
	z := &d.zones[zi]
	if j.cfg.ResetFrequency != 0 && float64(d.wpSwd) >= float64(f.size)*j.cfg.ResetThreshold && j.decWriteCnt(d) {
		z.resetZone = true
	}
	if z.resetZone || j.writeFull(z, minBS) {
		// The writes already issued to the zone complete first.
		j.wait(d)
		z.resetZone = false
		j.resetZone(d, zi)
		if z.capacity < minBS {
			j.unlockZone(d, zi)
			j.fail(syscall.EINVAL, "zone capacity %d smaller than minimum block size %d", z.capacity, minBS)
			return 0, 0, false
		}
	}
	off = z.wp
	if !f.valid(base, off) {
		j.unlockZone(d, zi)
		j.fail(syscall.EINVAL, "invalid WP value")
		return 0, 0, false
	}
	if n = j.writeLen(z, off, n, minBS); n == 0 {
		j.unlockZone(d, zi)
		j.fail(syscall.EIO, "zone remainder %d smaller than min block size %d", z.capEnd()-off, minBS)
		return 0, 0, false
	}
	return off, n, true
}

// writeFull is fio 3.42's zbd_zone_full for writes: fewer than minBS
// bytes left, or with write_zone_remainder none.
func (j *Job) writeFull(z *zone, minBS uint64) bool {
	if j.cfg.WriteRemainder {
		return z.wp >= z.capEnd()
	}
	return z.full(minBS)
}

// writeLen is the length of a write of n bytes at the write pointer off
// of zone z, as fio's zbd_adjust_block shortens it: to what the zone has
// left, in whole blocks of minBS; with write_zone_remainder, what is left
// when it is no more than a block. 0 when nothing fits.
func (j *Job) writeLen(z *zone, off, n, minBS uint64) uint64 {
	l := min(n, z.capEnd()-off)
	if j.cfg.WriteRemainder && l <= minBS {
		return l
	}
	if l = l / minBS * minBS; l < minBS && l != n {
		return 0
	}
	return l
}

// decWriteCnt is fio's zbd_dec_and_reset_write_cnt: true on the write
// that zone_reset_frequency resets a zone for.
func (j *Job) decWriteCnt(d *Device) bool {
	var left uint32
	if d.writeCnt > 0 {
		d.writeCnt--
		left = d.writeCnt
	}
	if left == 0 {
		j.resetWriteCnt(d)
	}
	return left == 0
}

// resetZone is fio's zbd_reset_zone on an emulated zone: the write
// pointer goes back to the zone's start, and the job counts a reset when
// the zone held data.
func (j *Job) resetZone(d *Device, zi uint32) {
	z := &d.zones[zi]
	data := z.wp - z.start
	if data == 0 {
		return
	}
	d.swd -= data
	d.wpSwd -= data
	z.wp = z.start
	j.Resets++
}

// closeZone is fio's zbd_close_zone: the zone leaves the open list (the
// entries after it move down, the last one staying as it was).
func (j *Job) closeZone(d *Device, zi uint32) {
	z := &d.zones[zi]
	if !z.open {
		return
	}
	k := uint32(0)
	for k < d.numOpen && d.open[k] != zi {
		k++
	}
	if k == d.numOpen {
		return
	}
	copy(d.open[k:], d.open[k+1:])
	d.numOpen--
	j.numOpen--
	z.open = false
}

// openZone is fio's zbd_open_zone: whether zone zi can take a write, as
// an open zone under the limits (opening it when it is not open yet).
func (j *Job) openZone(f *file, zi uint32) bool {
	d := f.dev
	z := &d.zones[zi]
	if j.cfg.Verify && j.writeFull(z, j.cfg.MinBS[jobfile.DirWrite]) {
		return false
	}
	if d.maxOpen == 0 {
		return true
	}
	if z.open {
		// Filled by writes already issued: handle as full.
		return z.wp < z.capEnd()
	}
	if j.cfg.JobMaxOpen > 0 && j.numOpen >= j.cfg.JobMaxOpen || d.numOpen >= d.maxOpen {
		return false
	}
	d.open[d.numOpen] = zi
	d.numOpen++
	j.numOpen++
	z.open = true
	return true
}

// pick is fio's pick_random_zone_idx: an index into the open list from
// where off lies in the region.
func (f *file) pick(base, off uint64) uint32 {
	return uint32((off - base) * uint64(f.dev.numOpen) / f.size)
}

// convertToOpenZone is fio's zbd_convert_to_open_zone: a zone with room
// for a write of minBS, preferring an open one picked from off, else
// opening the next zone that can be opened, else any open zone with room.
// It returns holding the zone's lock, as fio's; it holds none when no
// zone can take the write.
func (j *Job) convertToOpenZone(f *file, base, off, minBS uint64) (uint32, bool) {
	d := f.dev
	limited := d.maxOpen > 0 || j.cfg.JobMaxOpen > 0
	var zi uint32
	if limited {
		zi = d.open[f.pick(base, off)]
	} else {
		zi = d.zoneIdx(off)
	}
	if zi < f.minZone {
		zi = f.minZone
	} else if zi >= f.maxZone {
		zi = f.maxZone - 1
	}
	zi, examine, ok := j.lockCandidate(f, base, off, zi, limited)
	if !ok {
		return 0, false
	}
	if examine && !j.writeFull(&d.zones[zi], minBS) {
		return zi, true
	}
	// Zone zi is full (or nothing is open): open another, once the
	// zones that the I/O in flight fills have closed when a limit is
	// reached.
	if d.numOpen == f.maxZone-f.minZone || d.maxOpen > 0 && d.numOpen == d.maxOpen ||
		j.cfg.JobMaxOpen > 0 && j.numOpen == j.cfg.JobMaxOpen {
		j.wait(d)
	}
	retry := true
	shared := d.shared // the scans test it once
	for {
		for i := f.size / d.zoneSize; i > 0; i-- {
			if shared {
				j.dropZone(d, zi)
			}
			zi++
			if !f.valid(base, d.zones[zi].start) {
				zi = f.minZone
			}
			if shared {
				j.takeZone(d, zi)
			}
			if d.zones[zi].open {
				continue
			}
			if j.openZone(f, zi) {
				return zi, true
			}
		}
		for k := uint32(0); k < d.numOpen; k++ {
			o := d.open[k]
			if o < f.minZone || o >= f.maxZone {
				continue
			}
			if shared {
				j.dropZone(d, zi)
				j.takeZone(d, o)
			}
			zi = o
			if !j.writeFull(&d.zones[o], minBS) {
				return o, true
			}
		}
		// fio tries again after the I/O in flight completed, and once
		// more when there was none; any job's I/O in flight counts
		// (any_io_in_flight), and where other jobs' is, the job waits
		// for one of their zones to be released where fio polls.
		others := d.shared && d.inflight > f.inflight
		j.unlockZone(d, zi)
		inFlight := j.wait(d) || others
		if others && d.inflight > f.inflight {
			d.waiters++
			d.cond.Wait()
			d.waiters--
		}
		if !inFlight && !retry {
			break
		}
		j.lockZone(d, zi)
		retry = inFlight
	}
	return 0, false
}

// lockCandidate locks zone zi and, with open-zone limits, the open zone
// picked from off within f again until the two agree: the zone picked is
// locked before the open list is read again, because the list may change
// while the job waits for the lock, and fio loops until the candidate it
// reads is the zone it holds. examine says whether the zone held may take
// the write as it is; ok is false, holding no lock, when no open zone of
// f remains.
func (j *Job) lockCandidate(f *file, base, off uint64, zi uint32, limited bool) (_ uint32, examine, ok bool) {
	d := f.dev
	examine = !limited
	for {
		j.lockZone(d, zi)
		if !limited || d.numOpen == 0 {
			break
		}
		p := f.pick(base, off)
		found := false
		for i, t := uint32(0), p; i < d.numOpen; i, t = i+1, t+1 {
			if t >= d.numOpen {
				t = 0
			}
			if z := d.open[t]; f.minZone <= z && z < f.maxZone {
				p, found = t, true
				break
			}
		}
		if !found {
			j.unlockZone(d, zi)
			return 0, false, false
		}
		nz := d.open[p]
		if nz == zi {
			examine = true
			break
		}
		j.unlockZone(d, zi)
		zi = nz
	}
	return zi, examine, true
}

// findZone is fio's zbd_find_zone: the next zone after zi with minBytes
// of data (a random job looks before zi too, nearest first), returned
// locked.
func (j *Job) findZone(f *file, minBytes uint64, zi uint32) (uint32, bool) {
	d := f.dev
	shared := d.shared // the scan tests it once
	// holds reports whether zone z has minBytes, keeping it locked if so.
	holds := func(z uint32) bool {
		if shared {
			j.takeZone(d, z)
		}
		if zn := &d.zones[z]; zn.start+minBytes <= zn.wp {
			return true
		}
		if shared {
			j.dropZone(d, z)
		}
		return false
	}
	for z1, z2 := int64(zi)+1, int64(zi)-1; z1 < int64(f.maxZone) || z2 >= int64(f.minZone); z1, z2 = z1+1, z2-1 {
		if z1 < int64(f.maxZone) {
			if holds(uint32(z1)) {
				return uint32(z1), true
			}
		} else if !j.cfg.Random {
			break
		}
		if j.cfg.Random && z2 >= int64(f.minZone) && holds(uint32(z2)) {
			return uint32(z2), true
		}
	}
	return 0, false
}
