package ivset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// model is a brute-force Set: a list of ranges, searched in full.
type model struct{ r []node }

func (m *model) insert(file int32, off uint64, n uint32, id int32) (ev []int32) {
	kept := m.r[:0]
	for _, x := range m.r {
		if x.file == file && x.off < off+uint64(n) && off < x.off+uint64(x.n) {
			ev = append(ev, x.id)
			continue
		}
		kept = append(kept, x)
	}
	m.r = append(kept, node{file: file, off: off, n: n, id: id})
	return ev
}

func (m *model) sorted() []int32 {
	r := slices.Clone(m.r)
	slices.SortFunc(r, func(a, b node) int {
		if less(a.file, a.off, b.file, b.off) {
			return -1
		}
		return 1
	})
	var ids []int32
	for _, x := range r {
		ids = append(ids, x.id)
	}
	return ids
}

// TestSetAgainstModel checks Insert, PopFirst and AppendIDs against a
// list searched in full, with mixed sizes over two files: every range a
// new one overlaps is evicted, and the rest come out in order.
func TestSetAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Set
	var m model
	for i := int32(0); i < 20000; i++ {
		if rng.IntN(10) == 0 && s.Len() > 0 {
			want := m.sorted()[0]
			if id, ok := s.First(); !ok || id != want {
				t.Fatalf("op %d: First %d %v, want %d", i, id, ok, want)
			}
			id, ok := s.PopFirst()
			if !ok || id != want {
				t.Fatalf("op %d: PopFirst %d %v, want %d", i, id, ok, want)
			}
			m.r = slices.DeleteFunc(m.r, func(x node) bool { return x.id == id })
			continue
		}
		file := int32(rng.IntN(2))
		off := uint64(rng.IntN(256)) * 4096
		n := uint32(4096 << rng.IntN(4))
		got := s.Insert(file, off, n, i, nil)
		want := m.insert(file, off, n, i)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("op %d: insert %d:%d+%d evicted %v, want %v", i, file, off, n, got, want)
		}
		if s.Len() != len(m.r) {
			t.Fatalf("op %d: Len %d, want %d", i, s.Len(), len(m.r))
		}
	}
	if got, want := s.AppendIDs(nil), m.sorted(); !slices.Equal(got, want) {
		t.Fatalf("AppendIDs %v, want %v", got, want)
	}
	if !s.Remove(m.r[0].file, m.r[0].off) || s.Remove(m.r[0].file, m.r[0].off) || s.Len() != len(m.r)-1 {
		t.Fatalf("Remove of a held range, then again: Len %d, want %d", s.Len(), len(m.r)-1)
	}
	s.Reset()
	if s.Len() != 0 || len(s.AppendIDs(nil)) != 0 {
		t.Fatal("Reset left ranges")
	}
}
