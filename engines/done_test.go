package engines

import "testing"

// TestDoneQueue pushes and pops across the wrap-around and checks order
// and counts.
func TestDoneQueue(t *testing.T) {
	q := NewDoneQueue(3)
	out := make([]Completion, 2)
	next, want := uint32(0), uint32(0)
	for round := 0; round < 5; round++ {
		for q.Len() < 3 {
			q.Push(Completion{Slot: next, Res: int32(next)})
			next++
		}
		n := q.Pop(out)
		if n != 2 || q.Len() != 1 {
			t.Fatalf("round %d: popped %d, %d left; want 2 and 1", round, n, q.Len())
		}
		for _, c := range out[:n] {
			if c.Slot != want || c.Res != int32(want) {
				t.Fatalf("round %d: got slot %d, want %d", round, c.Slot, want)
			}
			want++
		}
	}
	if n := q.Pop(make([]Completion, 8)); n != 1 || q.Len() != 0 {
		t.Errorf("drain popped %d, %d left; want 1 and 0", n, q.Len())
	}
}
