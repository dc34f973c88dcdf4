package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	clone := &debug.BuildInfo{GoVersion: "go1.22.0", Main: debug.Module{Path: "github.com/gofio/gofio", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
			{Key: "vcs.time", Value: "2026-11-30T16:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
	tests := []struct {
		name       string
		bi         *debug.BuildInfo
		ok         bool
		ldV, ldC   string
		want, wRev string
	}{
		{"clone, dirty", clone, true, "", "", "gofio-(devel)-1a2b3c4d5e6f-dirty", "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
		{"go install module@v0.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, true, "", "", "gofio-v0.2.0", ""},
		{"pseudo-version (Go 1.24+ in a clone)", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130160000-1a2b3c4d5e6f+dirty"}}, true, "", "",
			"gofio-v0.0.0-20261130160000-1a2b3c4d5e6f+dirty", ""},
		{"release, -ldflags -X", clone, true, "v0.3.0", "ffff", "gofio-v0.3.0", "ffff"},
		{"no build info", nil, false, "", "", "gofio-(devel)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fromBuildInfo(tt.bi, tt.ok, tt.ldV, tt.ldC)
			if got := in.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if in.Revision != tt.wRev {
				t.Errorf("Revision = %q, want %q", in.Revision, tt.wRev)
			}
		})
	}
}

// TestRunningBinary checks the test binary's own string keeps fio's
// "gofio-" prefix that the JSON "fio version" value promises.
func TestRunningBinary(t *testing.T) {
	if s := String(); !strings.HasPrefix(s, "gofio-") {
		t.Errorf("String() = %q, want the gofio- prefix", s)
	}
}
