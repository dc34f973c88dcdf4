// Package ivset keeps disjoint byte ranges of files in file and offset
// order, as fio 3.33 keeps the verify log of a job without a random map
// (iolog.c's log_io_piece sorts those writes into a tree): a range put
// into the set first takes out every range it overlaps, so the set never
// holds two ranges that share a byte, and the ranges come out lowest
// first.
//
// The set is a treap over a pool of nodes, with priorities from a fixed
// xorshift sequence, so the same calls build the same set every run. Each
// range carries an int32 id of the caller's.
package ivset

// Set is an ordered set of disjoint ranges. The zero value is empty and
// ready to use.
type Set struct {
	nodes []node
	free  []int32
	root  int32
	n     int
	rnd   uint32
	init  bool
	stack []int32
}

type node struct {
	off         uint64
	n           uint32
	file        int32
	id          int32
	prio        uint32
	left, right int32
}

const none = -1

func (s *Set) setup() {
	if !s.init {
		s.root, s.rnd, s.init = none, 2463534242, true
	}
}

// Len returns the number of ranges in the set.
func (s *Set) Len() int { return s.n }

// Reset empties the set, keeping its memory.
func (s *Set) Reset() {
	s.nodes, s.free, s.n = s.nodes[:0], s.free[:0], 0
	s.root, s.init = none, false
}

// less orders keys by file, then offset.
func less(af int32, ao uint64, bf int32, bo uint64) bool {
	return af < bf || af == bf && ao < bo
}

func (s *Set) alloc(file int32, off uint64, n uint32, id int32) int32 {
	s.rnd ^= s.rnd << 13
	s.rnd ^= s.rnd >> 17
	s.rnd ^= s.rnd << 5
	nd := node{off: off, n: n, file: file, id: id, prio: s.rnd, left: none, right: none}
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		s.nodes[i] = nd
		return i
	}
	s.nodes = append(s.nodes, nd)
	return int32(len(s.nodes) - 1)
}

// Insert puts the range of n bytes at off in file into the set, with id,
// after taking out every range it overlaps; it appends the ids of those
// to evicted and returns it.
func (s *Set) Insert(file int32, off uint64, n uint32, id int32, evicted []int32) []int32 {
	s.setup()
	p, q := s.around(file, off)
	if p != none {
		if pn := &s.nodes[p]; pn.file == file && pn.off == off && pn.n == n &&
			(q == none || s.nodes[q].file != file || s.nodes[q].off >= off+uint64(n)) {
			// The same range again: the node takes the new id in place.
			evicted = append(evicted, pn.id)
			pn.id = id
			return evicted
		}
	}
	if p != none && overlaps(&s.nodes[p], file, off, n) || q != none && overlaps(&s.nodes[q], file, off, n) {
		evicted = s.removeOverlaps(file, off, n, evicted)
	}
	x := s.alloc(file, off, n, id)
	s.root = s.insert(s.root, x)
	s.n++
	return evicted
}

// overlaps says whether node nd shares a byte with the n bytes at off in
// file.
func overlaps(nd *node, file int32, off uint64, n uint32) bool {
	return nd.file == file && nd.off < off+uint64(n) && off < nd.off+uint64(nd.n)
}

// around returns, in one descent, the node with the greatest key at or
// below (file, off) and the one with the least key above it.
func (s *Set) around(file int32, off uint64) (p, q int32) {
	p, q = none, none
	t := s.root
	for t != none {
		tn := &s.nodes[t]
		switch {
		case less(file, off, tn.file, tn.off):
			q, t = t, tn.left
		case tn.file == file && tn.off == off:
			p = t
			for t = tn.right; t != none; t = s.nodes[t].left {
				q = t
			}
			return p, q
		default:
			p, t = t, tn.right
		}
	}
	return p, q
}

func (s *Set) insert(t, x int32) int32 {
	if t == none {
		return x
	}
	xn := &s.nodes[x]
	if xn.prio > s.nodes[t].prio {
		xn.left, xn.right = s.split(t, xn.file, xn.off)
		return x
	}
	tn := &s.nodes[t]
	if less(xn.file, xn.off, tn.file, tn.off) {
		tn.left = s.insert(tn.left, x)
	} else {
		tn.right = s.insert(tn.right, x)
	}
	return t
}

// split divides the treap t into the keys below (file, off) and the rest.
func (s *Set) split(t int32, file int32, off uint64) (lo, hi int32) {
	if t == none {
		return none, none
	}
	tn := &s.nodes[t]
	if less(tn.file, tn.off, file, off) {
		tn.right, hi = s.split(tn.right, file, off)
		return t, hi
	}
	lo, tn.left = s.split(tn.left, file, off)
	return lo, t
}

// merge joins treaps a and b, every key of a below every key of b.
func (s *Set) merge(a, b int32) int32 {
	switch {
	case a == none:
		return b
	case b == none:
		return a
	}
	if s.nodes[a].prio > s.nodes[b].prio {
		s.nodes[a].right = s.merge(s.nodes[a].right, b)
		return a
	}
	s.nodes[b].left = s.merge(a, s.nodes[b].left)
	return b
}

// remove takes the node with key (file, off) out of treap t.
func (s *Set) remove(t int32, file int32, off uint64) int32 {
	if t == none {
		return none
	}
	tn := &s.nodes[t]
	switch {
	case tn.file == file && tn.off == off:
		r := s.merge(tn.left, tn.right)
		s.free = append(s.free, t)
		s.n--
		return r
	case less(file, off, tn.file, tn.off):
		tn.left = s.remove(tn.left, file, off)
	default:
		tn.right = s.remove(tn.right, file, off)
	}
	return t
}

// floor returns the node with the greatest key at or below (file, off).
func (s *Set) floor(file int32, off uint64) int32 {
	best := int32(none)
	for t := s.root; t != none; {
		tn := &s.nodes[t]
		if less(file, off, tn.file, tn.off) {
			t = tn.left
		} else {
			best, t = t, tn.right
		}
	}
	return best
}

// ceil returns the node with the least key at or above (file, off).
func (s *Set) ceil(file int32, off uint64) int32 {
	best := int32(none)
	for t := s.root; t != none; {
		tn := &s.nodes[t]
		if less(tn.file, tn.off, file, off) {
			t = tn.right
		} else {
			best, t = t, tn.left
		}
	}
	return best
}

// RemoveOverlaps takes out of the set every range that shares a byte
// with the n bytes at off in file, appends their ids to evicted and
// returns it.
func (s *Set) RemoveOverlaps(file int32, off uint64, n uint32, evicted []int32) []int32 {
	s.setup()
	if p, q := s.around(file, off); (p == none || !overlaps(&s.nodes[p], file, off, n)) && (q == none || !overlaps(&s.nodes[q], file, off, n)) {
		return evicted
	}
	return s.removeOverlaps(file, off, n, evicted)
}

// removeOverlaps is RemoveOverlaps once a range overlapping is known.
func (s *Set) removeOverlaps(file int32, off uint64, n uint32, evicted []int32) []int32 {
	end := off + uint64(n)
	if p := s.floor(file, off); p != none {
		if pn := s.nodes[p]; pn.file == file && pn.off+uint64(pn.n) > off {
			evicted = append(evicted, pn.id)
			s.root = s.remove(s.root, pn.file, pn.off)
		}
	}
	for {
		q := s.ceil(file, off)
		if q == none {
			return evicted
		}
		qn := s.nodes[q]
		if qn.file != file || qn.off >= end {
			return evicted
		}
		evicted = append(evicted, qn.id)
		s.root = s.remove(s.root, qn.file, qn.off)
	}
}

// First returns the id of the lowest range of the set.
func (s *Set) First() (id int32, ok bool) {
	s.setup()
	t := s.root
	if t == none {
		return 0, false
	}
	for s.nodes[t].left != none {
		t = s.nodes[t].left
	}
	return s.nodes[t].id, true
}

// PopFirst takes the lowest range out of the set and returns its id.
func (s *Set) PopFirst() (id int32, ok bool) {
	s.setup()
	if s.root == none {
		return 0, false
	}
	t := s.root
	if s.nodes[t].left == none {
		s.root = s.nodes[t].right
	} else {
		p := t
		for s.nodes[s.nodes[p].left].left != none {
			p = s.nodes[p].left
		}
		t = s.nodes[p].left
		s.nodes[p].left = s.nodes[t].right
	}
	s.free = append(s.free, t)
	s.n--
	return s.nodes[t].id, true
}

// Remove takes the range at off in file out of the set, when it holds
// one there, and reports whether it did.
func (s *Set) Remove(file int32, off uint64) bool {
	s.setup()
	n := s.n
	s.root = s.remove(s.root, file, off)
	return s.n < n
}

// AppendIDs appends the ids of the set's ranges, lowest first, to dst and
// returns it.
func (s *Set) AppendIDs(dst []int32) []int32 {
	s.setup()
	st := s.stack[:0]
	for t := s.root; t != none || len(st) > 0; {
		for ; t != none; t = s.nodes[t].left {
			st = append(st, t)
		}
		t = st[len(st)-1]
		st = st[:len(st)-1]
		dst = append(dst, s.nodes[t].id)
		t = s.nodes[t].right
	}
	s.stack = st
	return dst
}
