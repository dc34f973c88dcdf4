package jobfile

import "testing"

// TestTaskrunAuto checks that a job asks for fio's task-run ring flags
// unless one of gofio's task-run options was given, in a section, a
// [global] or through --set.
func TestTaskrunAuto(t *testing.T) {
	tests := []struct {
		name string
		text string
		sets []string
		want bool
	}{
		// Nothing given: fio's flags.
		{"default", "[j]\nioengine=io_uring\nsize=1m\n", nil, true},
		// coop_taskrun=0 turns the defaults off.
		{"coop off", "[j]\nioengine=io_uring\nsize=1m\ncoop_taskrun=0\n", nil, false},
		// defer_taskrun in [global].
		{"global defer", "[global]\nioengine=io_uring\ndefer_taskrun=1\n[j]\nsize=1m\n", nil, false},
		// single_issuer through --set.
		{"set", "[j]\nioengine=io_uring\nsize=1m\n", []string{"single_issuer=0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := Parse(Input{Files: []string{writeJob(t, "t.fio", tt.text)}, Sets: tt.sets, Host: &testHost})
			if err != nil {
				t.Fatal(err)
			}
			if got := jobs[0].TaskrunAuto; got != tt.want {
				t.Errorf("TaskrunAuto = %v, want %v", got, tt.want)
			}
		})
	}
}
