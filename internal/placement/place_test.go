package placement

import (
	"fmt"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestAllowedCPUs follows fio's cpus_allowed_policy: shared gives every
// job the whole list; split gives job number k (0-based over the run) the
// k-th CPU of the list in ascending order, wrapping around.
func TestAllowedCPUs(t *testing.T) {
	tests := []struct {
		cpus   []int
		policy string
		index  int
		want   []int
	}{
		{[]int{0, 1, 2}, "", 2, []int{0, 1, 2}},       // the default shares
		{[]int{0, 1, 2}, "shared", 1, []int{0, 1, 2}}, // so does shared
		{[]int{0, 1, 2}, "split", 1, []int{1}},        // job 1: the second CPU
		{[]int{3, 1}, "split", 0, []int{1}},           // ascending, as fio's mask
		{[]int{0, 1}, "split", 3, []int{1}},           // job 3 wraps to the second
		{nil, "split", 0, nil},                        // no list: no pinning
		{[]int{0, 1, 2}, "", 2, []int{0, 2}},          // gtod_cpu=1 is taken out
		{[]int{0, 1, 2}, "split", 1, []int{2}},        // before the split
		{nil, "", 0, nil},                             // gtod_cpu without a list: no pinning
	}
	for i, tt := range tests {
		j := &jobfile.Job{CPUsAllowed: tt.cpus, CPUsAllowedPolicy: tt.policy}
		if i >= 6 {
			j.GtodCPU = 1
		}
		if got := allowedCPUs(j, tt.index); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("cpus_allowed=%v policy=%q job %d: %v, want %v", tt.cpus, tt.policy, tt.index, got, tt.want)
		}
	}
}
