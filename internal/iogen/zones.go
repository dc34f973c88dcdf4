package iogen

// This file holds the zones of random_distribution=zoned(_abs) and of
// zonemode=strided.

import "github.com/gofio/gofio/jobfile"

// zoneBounds is one entry of fio's zone_state_index: where a zoned range
// starts and ends, in percent of the region (zoned) or in bytes from its
// start (zoned_abs).
type zoneBounds struct{ start, end uint64 }

// zoneIndex is fio's __td_zone_gen_index: entry v-1 holds the range that
// a draw v in 1..100 picks.
func zoneIndex(zones []jobfile.ZoneSplit, absolute bool) *[100]zoneBounds {
	if len(zones) == 0 {
		return nil
	}
	var idx [100]zoneBounds
	var access int
	var prev uint64
	for _, z := range zones {
		size := uint64(z.SizePct)
		if absolute {
			size = z.Size
		}
		for k := access; k < access+int(z.Access) && k < len(idx); k++ {
			idx[k] = zoneBounds{start: prev, end: prev + size}
		}
		access += int(z.Access)
		prev += size
	}
	return &idx
}

// strideZone is fio's setup_strided_zone_mode, run before each I/O of a
// zonemode=strided job: after zonesize bytes the region moves on by
// zonerange+zoneskip (back to its start past the end of the file), a
// position past the zone goes back to its start, and at each zonerange
// bytes the file's positions and random map start over.
func (g *Offsets) strideZone(r *Region, d jobfile.Dir) {
	if g.zoneBytes >= g.zoneSize {
		g.zoneBytes = 0
		r.Base += g.zoneRange + g.zoneSkip
		if r.Base >= r.End {
			r.Base = r.Start
		}
		r.lastPos[d] = r.Base
	}
	if r.lastPos[d] >= r.Base+g.zoneRange {
		r.lastPos[d] = r.Base
	}
	if g.zoneBytes%g.zoneRange == 0 {
		g.resetFile(r)
	}
}

// zonedRange draws the range of a zoned (or zoned_abs) job's next random
// offset as fio's __get_next_rand_offset_zoned(_abs): a percentile from
// rZone picks the range, whose first block and length (in blockalign
// units, out of last) it returns. A zoned_abs range past the region's
// last block fails the draw, which ends the file's loop as in fio.
func (g *Offsets) zonedRange(z *[100]zoneBounds, last uint64, d jobfile.Dir) (first, n uint64, ok bool) {
	zb := z[g.rZone.Between(1, 100)-1]
	if g.zonedAbs {
		first, end := zb.start/g.ba[d], zb.end/g.ba[d]
		if end > last {
			g.AbsOverflows++
			return 0, 0, false
		}
		return first, end - first, true
	}
	if zb.start != 0 {
		first = zb.start * last / 100
	}
	return first, last * (zb.end - zb.start) / 100, true
}
