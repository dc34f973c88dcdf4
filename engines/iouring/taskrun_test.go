package iouring

import (
	"slices"
	"testing"
)

// TestTaskrunFlags checks the ring flags each task-run setting asks for:
// by default fio's own (COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN, no
// TASKRUN_FLAG), none when the user set any task-run option to 0, and none
// with SQPOLL, which the kernel refuses to combine with them.
func TestTaskrunFlags(t *testing.T) {
	tests := []struct {
		name               string
		auto, coop, defer_ bool
		sqpoll             bool
		want, absent       []string
	}{
		// Nothing given: fio's flags.
		{"auto", true, false, false, false, []string{"COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN"}, []string{"TASKRUN_FLAG"}},
		// coop_taskrun=0 (or any explicit choice) turns auto off.
		{"explicit off", false, false, false, false, nil, []string{"COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN"}},
		// coop_taskrun=1 alone.
		{"coop", false, true, false, false, []string{"COOP_TASKRUN", "TASKRUN_FLAG"}, []string{"DEFER_TASKRUN"}},
		// defer_taskrun=1 implies single_issuer.
		{"defer", false, false, true, false, []string{"DEFER_TASKRUN", "SINGLE_ISSUER"}, nil},
		// SQPOLL with auto: none of them.
		{"sqpoll", true, false, false, true, []string{"SQPOLL"}, []string{"COOP_TASKRUN", "DEFER_TASKRUN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := newJob()
			job.TaskrunAuto, job.CoopTaskrun, job.DeferTaskrun, job.SQThreadPoll = tt.auto, tt.coop, tt.defer_, tt.sqpoll
			fd := testFile(t, 4)
			e, _ := openEngine(t, job, []int{fd}, 4)
			flags := e.Stats().SetupFlags
			for _, f := range tt.want {
				if !slices.Contains(flags, f) {
					t.Errorf("setup flags %v lack %s", flags, f)
				}
			}
			for _, f := range tt.absent {
				if slices.Contains(flags, f) {
					t.Errorf("setup flags %v have %s", flags, f)
				}
			}
		})
	}
}
