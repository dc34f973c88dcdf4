package capacity

import (
	"math"
	"sort"
)

// AutoMaxDepth is the deepest iodepth --sweep iodepth=auto tries, the end
// of the list it stands in for (1..16384).
const AutoMaxDepth = 16384

// Search is the bisection over iodepths of --sweep iodepth=auto, after
// fio's latency_target search (which doubles the depth while a window
// meets the target, then bisects between the last depth that met it and
// the first that did not): it finds, per side, the deepest iodepth whose
// statistic meets the objective. It quadruples the depth from 1 until a
// depth misses the objective (or Max is reached), then halves the gap
// between the deepest depth that met it and the shallowest that missed,
// geometrically while they are a factor of 4 apart, then arithmetically,
// until the gap is at most an eighth of the depth (or 1). From 1 to 16384
// that is at most 8 + 4 runs a side, against the list's 15, and about 9
// for a device that saturates near 64.
//
// The search only proposes depths: the caller runs each, on every side,
// and reports whether it met the objective (Measured). It is pure.
type Search struct {
	// Max is the deepest depth tried.
	Max int
	met []map[int]bool // per side: depth -> met the objective
}

// NewSearch returns a search up to maxDepth over sides sides (1, or 2
// under --compare).
func NewSearch(maxDepth, sides int) *Search {
	s := &Search{Max: max(maxDepth, 1), met: make([]map[int]bool, sides)}
	for i := range s.met {
		s.met[i] = map[int]bool{}
	}
	return s
}

// Measured records whether depth met the objective on side.
func (s *Search) Measured(side, depth int, met bool) { s.met[side][depth] = met }

// Next returns the next depth to run, or 0 when every side's search is
// over. A side's search ends once the gap between its bracket is closed
// as above, when depth 1 already misses the objective, or when Max meets
// it.
func (s *Search) Next() int {
	for side := range s.met {
		if d := s.next(side); d > 0 {
			return d
		}
	}
	return 0
}

// next is Next for one side; 0 when its search is over.
func (s *Search) next(side int) int {
	lo, hi := s.Bracket(side)
	m := s.met[side]
	switch {
	case len(m) == 0:
		return 1
	case hi == 0 && lo >= s.Max:
		return 0
	case hi == 0:
		return min(lo*4, s.Max)
	case lo == 0:
		return 0 // depth 1 misses, and nothing deeper met
	case hi-lo <= max(1, lo/8):
		return 0
	case hi >= 4*lo:
		return int(math.Round(math.Sqrt(float64(lo) * float64(hi))))
	}
	return (lo + hi) / 2
}

// Bracket returns side's deepest depth known to meet the objective (lo,
// 0 when none did) and the shallowest depth deeper than it known to miss
// it (hi, 0 when none missed): where the capacity ends. Noise can make a
// shallower depth miss while a deeper one meets; the search follows the
// deepest that met.
func (s *Search) Bracket(side int) (lo, hi int) {
	depths := make([]int, 0, len(s.met[side]))
	for d := range s.met[side] {
		depths = append(depths, d)
	}
	sort.Ints(depths)
	for _, d := range depths {
		if s.met[side][d] {
			lo = d
		}
	}
	for _, d := range depths {
		if !s.met[side][d] && d > lo {
			return lo, d
		}
	}
	return lo, 0
}
