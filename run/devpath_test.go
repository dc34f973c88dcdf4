package run

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// TestCheckTargetsUnderDev checks the refusal of a missing target under
// /dev: a filename= or a directory= there that does not exist is refused
// with its option named, by CheckTargets and by Run's planning alike,
// while an existing device node, a path under /dev/shm and the null
// engine pass. Nothing is created under /dev.
func TestCheckTargetsUnderDev(t *testing.T) {
	const missing = "/dev/gofio-does-not-exist"
	tests := []struct {
		name   string
		engine string
		files  []string
		dirs   []string
		want   string // substring of the error; "" means no error
	}{
		{"missing filename", "psync", []string{missing}, nil, "filename: " + missing + " does not exist; gofio never creates files under /dev"},
		{"missing directory", "psync", nil, []string{missing}, "directory: " + missing + " does not exist"},
		{"existing device node", "psync", []string{"/dev/null"}, nil, ""},
		{"tmpfs is not a device", "psync", []string{"/dev/shm/gofio-does-not-exist"}, nil, ""},
		{"null engine touches no file", "null", []string{missing}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob("", "j", jobfile.RWRead, tt.engine)
			j.Filenames, j.Directory, j.NrFiles = tt.files, tt.dirs, 1
			err := target.CheckTargets([]*jobfile.Job{j})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckTargets = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckTargets = %v, want an error containing %q", err, tt.want)
			}
			res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
			if res != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run = %v, %v; want no result and an error containing %q", res, err, tt.want)
			}
			if _, err := os.Lstat(missing); err == nil {
				t.Errorf("%s was created", missing)
			}
		})
	}
}
