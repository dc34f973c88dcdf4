package sprandom

// pcBuf is fio's two-phase circular buffer (pcbuf.h): offsets are staged
// as one region is written and become readable when the next region
// starts (commit), so that a region's rewrites come from the region
// before it.
type pcBuf struct {
	commitHead, stagingHead, readTail uint64
	buf                               []uint64
}

func newPCBuf(capacity uint64) pcBuf { return pcBuf{buf: make([]uint64, capacity)} }

func (b *pcBuf) capacity() uint64 { return uint64(len(b.buf)) }

func (b *pcBuf) empty() bool { return b.readTail == b.commitHead }

func (b *pcBuf) full() bool { return (b.stagingHead+1)%b.capacity() == b.readTail }

// pushStaged stages v, unless the buffer is full.
func (b *pcBuf) pushStaged(v uint64) bool {
	if b.full() {
		return false
	}
	b.buf[b.stagingHead] = v
	b.stagingHead = (b.stagingHead + 1) % b.capacity()
	return true
}

// commit makes the staged values readable.
func (b *pcBuf) commit() { b.commitHead = b.stagingHead }

// pop reads the oldest committed value.
func (b *pcBuf) pop() (uint64, bool) {
	if b.empty() {
		return 0, false
	}
	v := b.buf[b.readTail]
	b.readTail = (b.readTail + 1) % b.capacity()
	return v, true
}

// size is the number of values between from and to around the ring.
func (b *pcBuf) size(from, to uint64) uint64 {
	if to >= from {
		return to - from
	}
	return b.capacity() - from + to
}

// spaceAvailable reports whether a value can be staged, keeping one slot
// free to tell full from empty.
func (b *pcBuf) spaceAvailable() bool {
	return b.size(b.readTail, b.commitHead)+b.size(b.commitHead, b.stagingHead) < b.capacity()-1
}
