package target

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestJobErrorWording: every target error names the job, the option the
// target comes from and its path, then what failed.
func TestJobErrorWording(t *testing.T) {
	tests := []struct {
		set  func(j *jobfile.Job)
		want string
	}{
		// An explicit filename=.
		{func(j *jobfile.Job) { j.Filenames = []string{"/x/f"} }, "job j: filename=/x/f: open: permission denied"},
		// filename= joined to directory=.
		{func(j *jobfile.Job) { j.Filenames, j.Directory = []string{"f"}, []string{"/d"} }, "job j: filename=/d/f: open: permission denied"},
		// A generated name in directory=.
		{func(j *jobfile.Job) { j.Filenames, j.Directory = nil, []string{"/d"} }, "job j: directory=/d: file /d/j.0.0: open: permission denied"},
		// A generated name in the working directory.
		{func(j *jobfile.Job) { j.Filenames = nil }, "job j: file j.0.0: open: permission denied"},
	}
	for _, tt := range tests {
		j := &jobfile.Job{Name: "j", IOEngine: "psync", RW: jobfile.RWRead, NrFiles: 1}
		tt.set(j)
		p := Names(j)[0]
		tg := &Target{Path: p, Label: Label(j, p)}
		je := Fail(j.Name, tg, "open", "open("+p+")", unix.EIO, unix.EACCES)
		if je.Error() != tt.want {
			t.Errorf("%q, want %q", je.Error(), tt.want)
		}
		if want := "func=open(" + p + "), error=Permission denied"; je.Verror() != want {
			t.Errorf("verror %q, want %q", je.Verror(), want)
		}
	}
}

// TestFileNamesDirectory checks where fio's add_file puts a job's files
// when directory= is set: filename= entries in the first directory for
// every clone (absolute ones too, as fio does), generated names in the
// clone's directory round-robin.
func TestFileNamesDirectory(t *testing.T) {
	tests := []struct {
		files []string
		dirs  []string
		clone int
		want  []string
	}{
		// filename= list, second clone: still the first directory.
		{[]string{"f1", "f2"}, []string{"/a", "/b"}, 1, []string{"/a/f1", "/a/f2"}},
		// An absolute filename= goes inside directory= too.
		{[]string{"/dev/sdb"}, []string{"/a"}, 0, []string{"/a/dev/sdb"}},
		// Without directory= a filename= is used as given.
		{[]string{"/dev/sdb", "rel"}, nil, 3, []string{"/dev/sdb", "rel"}},
		// Generated names: clone 1 of 2 directories gets the second.
		{nil, []string{"/a", "/b"}, 1, []string{"/b/j.1.0"}},
		// Clone 2 wraps around to the first.
		{nil, []string{"/a", "/b"}, 2, []string{"/a/j.2.0"}},
	}
	for _, tt := range tests {
		j := &jobfile.Job{Name: "j", IOEngine: "psync", RW: jobfile.RWRead, NrFiles: 1}
		j.Filenames, j.Directory, j.SubjobNumber, j.NrFiles = tt.files, tt.dirs, tt.clone, 1
		got := Names(j)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("filename=%v directory=%v clone %d: %v, want %v", tt.files, tt.dirs, tt.clone, got, tt.want)
		}
	}
}
