package zbd

import (
	"fmt"
	"syscall"

	"github.com/gofio/gofio/jobfile"
)

// Config is what a job's options say about its zoned I/O.
type Config struct {
	MinBS        [jobfile.NumDirs]uint64 // the smallest block size per direction (fio's min_bs)
	Random       bool                    // td_random
	Read, Write  bool                    // the job reads (td_read), writes (td_write)
	SeqReadOnly  bool                    // rw=read: fio's td_ddir == TD_DDIR_READ, which keeps offset and size unaligned
	Verify       bool                    // verify= is set
	ReadBeyondWP bool                    // read_beyond_wp
	JobMaxOpen   uint32                  // job_max_open_zones
	ZoneSkip     uint64                  // zoneskip (sequential jobs)
	// WriteRemainder is fio 3.42's write_zone_remainder: the end of a
	// zone that a block no longer fits is written with a shorter write,
	// and a zone is full only when nothing is left, instead of when less
	// than a block is.
	WriteRemainder bool
	// ResetThreshold and ResetFrequency are zone_reset_threshold and
	// zone_reset_frequency.
	ResetThreshold, ResetFrequency float64
}

// NewConfig returns the zone configuration of job j.
func NewConfig(j *jobfile.Job) Config {
	c := Config{
		Random:         j.RW.IsRandom(),
		Read:           j.RW.HasRead(),
		Write:          j.RW.HasWrite(),
		SeqReadOnly:    j.RW.HasRead() && !j.RW.HasWrite() && !j.RW.HasTrim() && !j.RW.IsRandom(),
		Verify:         j.Verify != "" && j.Verify != "0",
		ReadBeyondWP:   j.Zones.ReadBeyondWP,
		JobMaxOpen:     uint32(j.Zones.JobMaxOpen),
		ZoneSkip:       j.Zones.Skip,
		WriteRemainder: j.WriteZoneRemainder,
		ResetThreshold: j.Zones.ResetThreshold,
		ResetFrequency: j.Zones.ResetFrequency,
	}
	for d := range c.MinBS {
		c.MinBS[d] = j.BSMin(jobfile.Dir(d))
	}
	return c
}

// CheckJob refuses, as fio 3.42's zbd_setup_files, a writing job whose
// recover_zbd_write_error it cannot honour: without continue_on_error, or
// with verify on an asynchronous engine. On gofio's emulated zones the
// option has no other effect: a failed write leaves the write pointer
// where it was, and no device holds another one to read back.
func CheckJob(j *jobfile.Job) error {
	if !j.RecoverZBDWriteError || !j.RW.HasWrite() {
		return nil
	}
	if j.ContinueOnError == jobfile.ContinueNone {
		return fmt.Errorf("recover_zbd_write_error works only when continue_on_error is set")
	}
	if j.Verify != "" && j.Verify != "0" && j.Engine().Async() {
		return fmt.Errorf("recover_zbd_write_error for async IO engines does not support verify")
	}
	return nil
}

// Error is a zoned I/O that fails the job, with fio's errno and message.
type Error struct {
	Errno syscall.Errno
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// file is one of the job's files on its device: fio's fio_file with its
// file_offset, io_size, min_zone and max_zone.
type file struct {
	dev              *Device
	name             string
	size             uint64 // io_size
	realSize         uint64 // real_file_size
	minZone, maxZone uint32
	// inflight counts the zone locks the job's queued I/O holds in the
	// file, on a shared device with an asynchronous engine
	// (Device.inflight).
	inflight int
}

// Job is one job's zoned I/O over its files (fio's thread_data's zone
// state): the zones it has open, the resets it made.
type Job struct {
	cfg     Config
	files   []file
	numOpen uint32 // fio's td->num_open_zones (unsigned, as fio's)
	// Resets is fio's nr_zone_resets: the zone resets the job made since
	// it started or its ramp ended.
	Resets uint64
	// Err is the error that ended the job's I/O, nil when none.
	Err *Error
	// quiesce, set by SetQuiesce, completes the job's I/O in flight
	// (End closing the zones they fill and releasing their locks) and
	// reports whether there was any: fio's io_u_quiesce for an
	// asynchronous engine (async), and for a synchronous one what
	// fio's has done by the time its next I/O is placed.
	quiesce func() bool
	async   bool
	shared  bool // some of the job's devices are shared (set by AddFile)
}

// NewJob returns job's zone state with configuration c and no files yet.
func NewJob(c Config) *Job { return &Job{cfg: c} }

// SetQuiesce gives the job q, which completes its I/O in flight and
// reports whether there was any. async says the engine queues, as fio's
// io_uring and libaio: a write that fills its zone closes it when it
// completes (End), not when it is issued, and the zones wait for the
// I/O in flight through q before a reset, when the open-zone limits are
// reached, and before giving up on finding a zone. On a shared device
// any job calls q before it waits for a zone another job holds.
func (j *Job) SetQuiesce(q func() bool, async bool) { j.quiesce, j.async = q, async }

// wait is fio's io_u_quiesce with the device's mutex held: released while
// the job's I/O in flight completes. It reports whether any was. A
// synchronous job on a shared device completes what it issued too, as
// fio's has, and had nothing in flight.
func (j *Job) wait(d *Device) bool {
	if j.quiesce == nil || !j.async && !d.shared {
		return false
	}
	d.unlock()
	defer d.lock()
	return j.quiesce() && j.async
}

// closesAtEnd reports whether a write that fills its zone closes it at
// its completion (End) rather than when it is placed (Commit): with an
// asynchronous engine, as fio's zbd_put_io, and on a shared device,
// where fio's synchronous engines close it once the write returned.
func (j *Job) closesAtEnd(d *Device) bool { return j.async || d.shared }

// Holds reports whether an I/O of direction dir that Adjust placed in
// file fi holds its zone's lock until End: on a shared device, except a
// read that read_beyond_wp lets go anywhere (fio takes no lock for it).
func (j *Job) Holds(fi int, dir jobfile.Dir) bool {
	return j.files[fi].dev.shared && (dir != jobfile.DirRead || !j.cfg.ReadBeyondWP)
}

// lockZone is fio's zone_lock, with the device's mutex held (and
// released while it waits): on a shared device the job takes zone zi's
// lock, once more if it holds it already. When another job holds it,
// the job first completes its own I/O in flight, which may hold other
// zones, and then waits for the zone.
func (j *Job) lockZone(d *Device, zi uint32) {
	if d.shared {
		j.takeZone(d, zi)
	}
}

// takeZone is lockZone on a shared device.
func (j *Job) takeZone(d *Device, zi uint32) {
	z := &d.zones[zi]
	if z.owner != nil && z.owner != j {
		if j.quiesce != nil {
			d.mu.Unlock()
			j.quiesce()
			d.mu.Lock()
		}
		for z.owner != nil && z.owner != j {
			d.waiters++
			d.cond.Wait()
			d.waiters--
		}
	}
	z.owner = j
	z.held++
}

// unlockZone is fio's zone_unlock: one hold of zone zi's lock ends, and
// the jobs waiting for a lock look again.
func (j *Job) unlockZone(d *Device, zi uint32) {
	if d.shared {
		j.dropZone(d, zi)
	}
}

// dropZone is unlockZone on a shared device.
func (j *Job) dropZone(d *Device, zi uint32) {
	z := &d.zones[zi]
	if z.owner != j || z.held == 0 {
		panic(fmt.Sprintf("zbd: zone %d unlocked by a job that does not hold it", zi))
	}
	if z.held--; z.held == 0 {
		z.owner = nil
	}
	if d.waiters > 0 {
		d.cond.Broadcast()
	}
}

// End is fio's zbd_put_io for a completed I/O of n bytes at off in file
// fi: a write that reached its zone's capacity closes the zone (where
// closesAtEnd), and held (Holds when it was placed) releases its zone's
// lock.
func (j *Job) End(fi int, dir jobfile.Dir, off, n uint64, held bool) {
	if !held && !j.async && !j.shared {
		return // a synchronous job's write closed its zone at Commit
	}
	d := j.files[fi].dev
	closing := dir == jobfile.DirWrite && j.closesAtEnd(d)
	if !closing && !held {
		return
	}
	d.lock()
	zi := d.zoneIdx(off)
	if closing && off+n >= d.zones[zi].capEnd() {
		j.closeZone(d, zi)
	}
	if held {
		if j.async {
			j.files[fi].inflight--
			d.inflight--
		}
		j.unlockZone(d, zi)
	}
	d.unlock()
}

// ReleaseAll releases the zone locks the job still holds, as its I/O
// ends without completing what it placed (the job failed or stopped):
// the other jobs go on.
func (j *Job) ReleaseAll() {
	for i := range j.files {
		d := j.files[i].dev
		if !d.shared {
			continue
		}
		d.mu.Lock()
		for k := range d.zones {
			if z := &d.zones[k]; z.owner == j {
				z.owner, z.held = nil, 0
			}
		}
		d.inflight -= j.files[i].inflight
		j.files[i].inflight = 0
		d.cond.Broadcast()
		d.mu.Unlock()
	}
}

// Align is fio's zbd_zone_align_file_sizes for a file of the job on device
// d whose region is size bytes at base of a file of realSize bytes: a job
// other than rw=read starts at a zone boundary (rounded up) and covers
// whole zones (rounded down). notes are fio's messages for what moved.
func (c *Config) Align(d *Device, name string, zoneSize, base, size, realSize uint64) (nb, ns uint64, notes []string, err error) {
	if base >= realSize || size == 0 {
		return base, size, nil, nil
	}
	if zoneSize != d.zoneSize {
		return 0, 0, nil, fmt.Errorf("%s: zonesize %d does not match the device zone size %d", name, zoneSize, d.zoneSize)
	}
	if c.ZoneSkip%d.zoneSize != 0 {
		return 0, 0, nil, fmt.Errorf("%s: zoneskip %d is not a multiple of the device zone size %d", name, c.ZoneSkip, d.zoneSize)
	}
	zi := d.zoneIdx(base)
	if base != d.zones[zi].start && !c.SeqReadOnly {
		nb := d.zoneEnd(zi)
		if nb >= base+size {
			return 0, 0, notes, fmt.Errorf("%s: io_size must be at least one zone", name)
		}
		notes = append(notes, fmt.Sprintf("%s: rounded up offset from %d to %d", name, base, nb))
		size -= nb - base
		base = nb
	}
	end := d.zones[d.zoneIdx(base+size)].start
	if !c.SeqReadOnly && base+size != end {
		if end <= base {
			return 0, 0, notes, fmt.Errorf("%s: io_size must be at least one zone", name)
		}
		notes = append(notes, fmt.Sprintf("%s: rounded down io_size from %d to %d", name, size, end-base))
		size = end - base
	}
	return base, size, notes, nil
}

// CheckBS is fio's zbd_verify_bs for the job on a device of zoneSize: a
// trim is one whole zone, and with verify every block size divides the
// zone size.
func (c *Config) CheckBS(name string, zoneSize uint64, bs [jobfile.NumDirs]uint64, trimRange bool, trims bool) error {
	if trims && trimRange {
		return fmt.Errorf("bsrange and bssplit are not allowed for trim with zonemode=zbd")
	}
	if trims && bs[jobfile.DirTrim] != zoneSize {
		return fmt.Errorf("%s: trim block size %d is not the zone size %d", name, bs[jobfile.DirTrim], zoneSize)
	}
	for _, b := range bs {
		if c.Verify && b != 0 && zoneSize%b != 0 {
			return fmt.Errorf("%s: block size %d is not a divisor of the zone size %d", name, b, zoneSize)
		}
	}
	return nil
}

// AddFile adds the job's next file, on device d, whose aligned region is
// size bytes at base of realSize bytes, with fio's zbd_setup_files checks
// of the open-zone limits.
func (j *Job) AddFile(d *Device, name string, base, size, realSize uint64, maxOpen int) error {
	if maxOpen > 0 && uint32(maxOpen) != d.maxOpen {
		return fmt.Errorf("different 'max_open_zones' values")
	}
	if j.cfg.JobMaxOpen > 0 && d.maxOpen == 0 {
		return fmt.Errorf("'job_max_open_zones' cannot be used without a global open zones limit")
	}
	j.files = append(j.files, file{dev: d, name: name, size: size, realSize: realSize,
		minZone: d.zoneIdx(base), maxZone: d.zoneIdx(base + size)})
	if d.first == nil {
		d.first = j
	} else if d.first != j {
		d.shared = true
		j.shared, d.first.shared = true, true
	}
	return nil
}

// valid is fio's is_valid_offset: off is within the region at base.
func (f *file) valid(base, off uint64) bool { return off-base < f.size }

// FileReset is fio's zbd_file_reset, run when the job (re)opens file fi:
// a writing job recounts the data in its zones and restarts the
// zone_reset_frequency count.
func (j *Job) FileReset(fi int) {
	f := &j.files[fi]
	if !j.cfg.Write {
		return
	}
	d := f.dev
	d.lock()
	defer d.unlock()
	// fio's zbd_process_swd counts under the locks of all the zones.
	for i := f.minZone; i < f.maxZone; i++ {
		j.lockZone(d, i)
	}
	var swd uint64
	for i := f.minZone; i < f.maxZone; i++ {
		z := &d.zones[i]
		swd += z.wp - z.start
	}
	d.swd, d.wpSwd = swd, swd
	for i := f.minZone; i < f.maxZone; i++ {
		j.unlockZone(d, i)
	}
	if j.cfg.Verify {
		// fio resets the zones first, so that no reset has to drop
		// data that verify will read.
		for i := f.minZone; i < f.maxZone; i++ {
			j.lockZone(d, i)
			j.closeZone(d, i)
			j.resetZone(d, i)
			j.unlockZone(d, i)
		}
	}
	j.resetWriteCnt(d)
}

// resetWriteCnt is fio's _zbd_reset_write_cnt: 1/zone_reset_frequency
// writes until the next reset (truncated, as fio's conversion), or no
// reset.
func (j *Job) resetWriteCnt(d *Device) {
	const uintMax = float64(^uint32(0))
	if f := j.cfg.ResetFrequency; f != 0 {
		d.writeCnt = uint32(min(1/f, uintMax))
		return
	}
	d.writeCnt = ^uint32(0)
}

// AdjustDir is fio's zbd_adjust_ddir: a job that reads and writes writes
// first while its device holds no data, unless read_beyond_wp.
func (j *Job) AdjustDir(fi int, dir jobfile.Dir) jobfile.Dir {
	if dir != jobfile.DirRead || !j.cfg.Read || !j.cfg.Write {
		return dir
	}
	d := j.files[fi].dev
	d.lock()
	swd := d.swd
	d.unlock()
	if swd > 0 || j.cfg.ReadBeyondWP {
		return jobfile.DirRead
	}
	return jobfile.DirWrite
}

// Setup is fio's setup_zbd_zone_mode before a sequential offset is taken:
// a sequential writer at the capacity end of a zone smaller than its
// size jumps to the next zone, and with zoneskip a sequential job moves
// its region on by zone size plus zoneskip once it is done with a zone
// (wrapping to start past the end of the file). lastPos, base and
// zoneBytes are the file's last position, its region's base and fio's
// td->zone_bytes.
func (j *Job) Setup(fi int, dir jobfile.Dir, lastPos, base *uint64, start uint64, zoneBytes *uint64) {
	f := &j.files[fi]
	d := f.dev
	d.lock()
	defer d.unlock()
	zi := d.zoneIdx(*lastPos)
	z := &d.zones[zi]
	if zi < d.nr && z.capacity < d.zoneSize && !j.cfg.Random && dir == jobfile.DirWrite && *lastPos >= z.capEnd() {
		*lastPos = d.zoneEnd(zi)
	}
	if j.cfg.Random || j.cfg.ZoneSkip == 0 {
		return
	}
	if *zoneBytes >= d.zoneSize || zi == d.nr || *lastPos >= d.zoneEnd(zi) ||
		dir == jobfile.DirRead && !j.cfg.ReadBeyondWP && *lastPos >= z.wp {
		*zoneBytes = 0
		*base += d.zoneSize + j.cfg.ZoneSkip
		if *base >= f.realSize {
			*base = start
		}
		*lastPos = *base
	}
}

// fail ends the job's I/O with errno and message.
func (j *Job) fail(errno syscall.Errno, format string, args ...any) {
	if j.Err == nil {
		j.Err = &Error{Errno: errno, Msg: fmt.Sprintf(format, args...)}
	}
}
