package kstage

import (
	"fmt"
	"testing"
)

// TestNames checks that every stage and every loss reason has a name of its
// own: a stage added between two others without a name fails here.
func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for s := Stage(0); s < NumStages; s++ {
		n := s.String()
		if n == "" || seen[n] {
			t.Errorf("stage %d: name %q empty or taken", int(s), n)
		}
		seen[n] = true
	}
	for k := Loss(0); k < NumLosses; k++ {
		n := k.String()
		if n == "" || seen[n] {
			t.Errorf("loss %d: name %q empty or taken", int(k), n)
		}
		seen[n] = true
	}
	if got, want := Stage(NumStages).String(), fmt.Sprintf("kstage(%d)", int(NumStages)); got != want {
		t.Errorf("out of range: %q", got)
	}
}
