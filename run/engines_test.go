package run

import (
	"slices"
	"sort"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestDefaultEnginesFollowTable checks that run opens exactly the engines
// jobfile's engine table says gofio runs.
func TestDefaultEnginesFollowTable(t *testing.T) {
	var have []string
	for name := range DefaultEngines() {
		have = append(have, name)
	}
	want := slices.Clone(jobfile.SupportedEngines)
	sort.Strings(have)
	sort.Strings(want)
	if !slices.Equal(have, want) {
		t.Errorf("DefaultEngines = %v, the engine table runs %v", have, want)
	}
}
