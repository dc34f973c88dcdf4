package canary

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestCycleFullPeriod: following the memory item's buffer from any index
// visits every index once before returning.
func TestCycleFullPeriod(t *testing.T) {
	for _, n := range []int{4, 1024, MemBytes / 4} {
		next := cycle(n)
		seen := make([]bool, n)
		p := uint32(0)
		for i := 0; i < n; i++ {
			if seen[p] {
				t.Fatalf("n=%d: index %d seen twice after %d steps", n, p, i)
			}
			seen[p] = true
			p = next[p]
		}
		if p != 0 {
			t.Errorf("n=%d: after n steps at %d, not back at 0", n, p)
		}
	}
}

// TestRead: a reading runs every item Reps times, in turn, and keeps each
// item's figures in rep order; an item's error ends the reading.
func TestRead(t *testing.T) {
	var order []string
	item := func(name string, v float64) Item {
		return Item{Name: name, Run: func(context.Context) (float64, error) {
			order = append(order, name)
			v++
			return v, nil
		}}
	}
	r := &Runner{Items: []Item{item("a", 10), item("b", 20)}, Reps: 3}
	rd, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]float64{"a": {11, 12, 13}, "b": {21, 22, 23}}; !reflect.DeepEqual(rd.Figures, want) {
		t.Errorf("figures %v, want %v", rd.Figures, want)
	}
	if want := []string{"a", "b", "a", "b", "a", "b"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want the items in turn %v", order, want)
	}
	if rd.CostMs < 0 || rd.At.IsZero() {
		t.Errorf("cost %v at %v", rd.CostMs, rd.At)
	}
	rec := &Record{Before: rd, After: &Reading{Figures: map[string][]float64{"a": {1}, "c": {5}}}}
	if got := rec.Pooled("a"); !reflect.DeepEqual(got, []float64{11, 12, 13, 1}) {
		t.Errorf("Pooled(a) = %v", got)
	}
	// Over budget, a reading stops after MinReps rounds.
	slow := &Runner{Items: []Item{{Name: "s", Run: func(context.Context) (float64, error) { time.Sleep(2 * time.Millisecond); return 1, nil }}},
		Reps: 10, Budget: time.Millisecond}
	if rd, err := slow.Read(context.Background()); err != nil || len(rd.Figures["s"]) != MinReps {
		t.Errorf("over budget: %v reps (%v), want %d", rd.Figures["s"], err, MinReps)
	}
	bad := &Runner{Items: []Item{{Name: "x", Run: func(context.Context) (float64, error) { return 0, errors.New("boom") }}}}
	if _, err := bad.Read(context.Background()); err == nil || err.Error() != "canary x: boom" {
		t.Errorf("failing item: %v", err)
	}
}

// TestStandardItems: the CPU and memory items measure positive figures
// (the figures themselves are the machine's and are not checked).
func TestStandardItems(t *testing.T) {
	rd, err := (&Runner{Items: []Item{CPUItem(), MemItem()}, Reps: 2}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ItemCPU, ItemMem} {
		if fs := rd.Figures[name]; len(fs) != 2 || !(fs[0] > 0) || !(fs[1] > 0) {
			t.Errorf("%s figures %v", name, fs)
		}
	}
}
