// Package zbd is fio 3.33's zonemode=zbd on targets that are not zoned
// block devices (zbd.c's init_zone_info): zones of zonesize bytes with
// write pointers kept in memory, every zone sequential-write-required and
// empty at the start of the run. It decides, as zbd.c does, where each I/O
// of a zbd job goes: writes at the write pointer of an open zone (opening,
// closing and resetting zones under max_open_zones, job_max_open_zones,
// zone_reset_threshold and zone_reset_frequency), reads below the write
// pointer unless read_beyond_wp.
//
// Rules: a Device is shared by every job of a run on one file; a Job is
// one job's view and is used by that job's goroutine only. Nothing here
// does I/O: a zone reset on an emulated device moves the write pointer
// only, as in fio. A write moves its zone's write pointer when it is
// chosen (fio's zbd_queue_io at queue time); the zone closes once full
// then with a synchronous engine, at the write's completion with an
// asynchronous one (Job.SetQuiesce, Job.End).
//
// Zone locks: when more than one job uses a Device (numjobs, or several
// job sections on one file) the device's mutex guards its state and each
// zone has fio's recursive zone lock, held by one job at a time: taken
// where zbd.c's zone_lock takes it, from zbd_adjust_block until the I/O
// placed in the zone completes (Job.End), for synchronous and
// asynchronous engines alike. Another job that wants the zone first
// completes its own I/O in flight (fio's io_u_quiesce in zone_lock; it
// may hold other zones) and then waits, so a zone is written by one job
// at a time, at its write pointer, and a reset waits for the writes in
// flight to it. A Device one job uses takes no lock at all.
package zbd

import (
	"fmt"
	"math/bits"
	"sync"
)

// MaxOpenZones is fio's ZBD_MAX_OPEN_ZONES, the bound of max_open_zones
// and job_max_open_zones.
const MaxOpenZones = 4096

// zone is fio's fio_zone_info for an emulated zone.
type zone struct {
	start, wp, capacity uint64
	open                bool // in the device's open list (max_open_zones > 0)
	resetZone           bool // reset before the next write (zone_reset_*)
	// owner holds the zone's lock held times (fio's recursive z->mutex);
	// nil when free. Used on a shared device only.
	owner *Job
	held  uint32
}

// Device is the zone state of one emulated target (fio's
// zoned_block_device_info), shared by the jobs that use it.
type Device struct {
	// shared is set once a second job uses the device (AddFile), before
	// any job runs: only then are mu and the zone locks taken.
	shared bool
	mu     sync.Mutex
	// cond, on mu, wakes the jobs waiting for a zone lock (waiters of
	// them) when one is released.
	cond    sync.Cond
	waiters int
	// inflight counts the zone locks held by I/O that jobs with
	// asynchronous engines queued: fio's any_io_in_flight.
	inflight int
	first    *Job // the first job that used the device
	zoneSize uint64
	log2     uint // log2 of zoneSize when a power of 2, else 0
	nr       uint32
	zones    []zone // nr zones and a sentinel whose start is nr*zoneSize
	maxOpen  uint32
	// open is fio's open_zones array: the first numOpen entries are the
	// open zones; the rest keep what closing left there, which fio reads
	// when it picks among no open zones.
	open    [MaxOpenZones]uint32
	numOpen uint32
	// swd and wpSwd are fio's sectors_with_data and wp_sectors_with_data,
	// in bytes.
	swd, wpSwd uint64
	writeCnt   uint32 // writes left until the next zone_reset_frequency reset
}

// NewDevice returns the emulated zones of a target of size bytes, as fio's
// init_zone_info, with fio's errors for a zone size or capacity it
// refuses; capacity 0 is the zone size. maxOpen is max_open_zones (0: no
// limit, and open zones are not tracked).
func NewDevice(name string, size, zoneSize, capacity uint64, maxOpen int) (*Device, error) {
	switch {
	case zoneSize == 0:
		return nil, fmt.Errorf("%s: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd", name)
	case zoneSize < 512:
		return nil, fmt.Errorf("%s: zone size must be at least 512 bytes for --zonemode=zbd", name)
	}
	if capacity == 0 {
		capacity = zoneSize
	}
	if capacity > zoneSize {
		return nil, fmt.Errorf("%s: job parameter zonecapacity %d is larger than zone size %d", name, capacity, zoneSize)
	}
	if size < zoneSize {
		return nil, fmt.Errorf("%s: file/device size %d is smaller than zone size %d", name, size, zoneSize)
	}
	if maxOpen > MaxOpenZones {
		return nil, fmt.Errorf("'max_open_zones' value is larger than %d", MaxOpenZones)
	}
	nr := (size + zoneSize - 1) / zoneSize
	d := &Device{zoneSize: zoneSize, nr: uint32(nr), zones: make([]zone, nr+1), maxOpen: uint32(maxOpen)}
	d.cond.L = &d.mu
	for i := range d.zones {
		z := &d.zones[i]
		z.start = uint64(i) * zoneSize
		z.wp, z.capacity = z.start, capacity
	}
	d.zones[nr].capacity = 0
	if zoneSize&(zoneSize-1) == 0 {
		d.log2 = uint(bits.TrailingZeros64(zoneSize))
	}
	return d, nil
}

// ZoneSize returns the device's zone size.
func (d *Device) ZoneSize() uint64 { return d.zoneSize }

// MaxOpen returns the device's max_open_zones (0: no limit).
func (d *Device) MaxOpen() int { return int(d.maxOpen) }

// lock takes the device's mutex, where other jobs use the device too; it
// is small enough to inline, so a device of one job pays a test.
func (d *Device) lock() {
	if d.shared {
		d.lockShared()
	}
}

// unlock releases what lock took.
func (d *Device) unlock() {
	if d.shared {
		d.unlockShared()
	}
}

func (d *Device) lockShared()   { d.mu.Lock() }
func (d *Device) unlockShared() { d.mu.Unlock() }

// Shared reports whether more than one job uses the device, so that its
// zones are locked across them.
func (d *Device) Shared() bool { return d.shared }

// zoneIdx is fio's zbd_offset_to_zone_idx: the zone of off, or the
// sentinel for an offset past the last zone.
func (d *Device) zoneIdx(off uint64) uint32 {
	var i uint64
	if d.log2 > 0 {
		i = off >> d.log2
	} else {
		i = off / d.zoneSize
	}
	return uint32(min(i, uint64(d.nr)))
}

// capEnd is fio's zbd_zone_capacity_end.
func (z *zone) capEnd() uint64 { return z.start + z.capacity }

// full is fio's zbd_zone_full: fewer than required bytes left below the
// zone's capacity.
func (z *zone) full(required uint64) bool { return z.wp+required > z.capEnd() }

// zoneEnd is fio's zbd_zone_end: the start of the next zone.
func (d *Device) zoneEnd(i uint32) uint64 { return d.zones[i+1].start }

// WritePointer returns the write pointer of the zone holding off, for
// tests and reports.
func (d *Device) WritePointer(off uint64) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.zones[d.zoneIdx(off)].wp
}

// OpenZones returns the indexes of the open zones, in fio's order.
func (d *Device) OpenZones() []uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]uint32(nil), d.open[:d.numOpen]...)
}
