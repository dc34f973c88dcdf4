// Package buildinfo says which build of gofio is running. A release build
// sets the version and commit with the linker (-ldflags -X, see
// .goreleaser.yaml); any other build reads them from the module build
// information the go command embeds: the module version under go install
// module@version, or "(devel)" with the VCS revision, its time and a dirty
// flag in a clone. It is the one home of gofio's version string.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Set by release builds:
//
//	-X github.com/gofio/gofio/internal/buildinfo.version=v1.2.3
//	-X github.com/gofio/gofio/internal/buildinfo.commit=<full hash>
//
// They are strings the linker writes; nothing in gofio assigns them.
var (
	version string
	commit  string
)

// Info identifies one build.
type Info struct {
	// Version is the module version: a release tag ("v0.2.0"), a
	// pseudo-version, or "(devel)" for a build from a work tree.
	Version string
	// Revision is the VCS commit hash, "" when unknown.
	Revision string
	// Time is the commit time in RFC 3339, "" when unknown.
	Time string
	// Dirty reports uncommitted changes in the work tree it was built from.
	Dirty bool
	// GoVersion is the Go release that built the binary.
	GoVersion string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	return fromBuildInfo(bi, ok, version, commit)
}

// fromBuildInfo combines the embedded build information with the
// linker-set values; the linker's win.
func fromBuildInfo(bi *debug.BuildInfo, ok bool, ldVersion, ldCommit string) Info {
	in := Info{Version: "(devel)"}
	if ok && bi != nil {
		in.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Dirty = s.Value == "true"
			}
		}
	}
	if ldVersion != "" {
		in.Version = ldVersion
		in.Dirty = false
	}
	if ldCommit != "" {
		in.Revision = ldCommit
	}
	return in
}

// String is the version as gofio prints it and writes it into results,
// fio-style: "gofio-" and the module version ("gofio-v0.2.0"); a work-tree
// build adds the short revision and "-dirty" ("gofio-(devel)-1a2b3c4d5e6f-dirty").
// A pseudo-version already names its commit and is printed as it is.
func (i Info) String() string {
	v := strings.TrimPrefix(i.Version, "gofio-")
	s := "gofio-" + v
	if v == "(devel)" {
		if i.Revision != "" {
			s += "-" + short(i.Revision)
		}
		if i.Dirty {
			s += "-dirty" // as Commit marks it
		}
	}
	return s
}

// Commit is the VCS revision with "-dirty" when the work tree had
// changes, "" when the build carries no revision.
func (i Info) Commit() string {
	if i.Revision == "" || !i.Dirty {
		return i.Revision
	}
	return i.Revision + "-dirty"
}

// short is the first 12 hex digits of a commit hash.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is Read().String(): the running gofio's version string.
func String() string { return Read().String() }
