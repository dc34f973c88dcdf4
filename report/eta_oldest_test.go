package report

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestETAOldestIO: the status line shows the oldest in-flight I/O's age
// once it passes a second, before and after the 3 s mark, and not below.
func TestETAOldestIO(t *testing.T) {
	p := &Progress{}
	p.State.Store('R')
	e := NewETA(io.Discard, []*Progress{p}, 1024, 8)
	for _, tt := range []struct {
		age     time.Duration
		elapsed time.Duration
		want    string
	}{
		{0, 5 * time.Second, ""},
		{900 * time.Millisecond, 5 * time.Second, ""},
		{2400 * time.Millisecond, 2 * time.Second, "[oldest I/O 2.4s]"},
		{2400 * time.Millisecond, 5 * time.Second, "[oldest I/O 2.4s]"},
	} {
		p.OldestIO.Store(int64(tt.age))
		line := e.line(tt.elapsed)
		if got := strings.Contains(line, "[oldest I/O"); got != (tt.want != "") || (tt.want != "" && !strings.HasSuffix(line, tt.want)) {
			t.Errorf("age %v at %v: %q; want suffix %q", tt.age, tt.elapsed, line, tt.want)
		}
	}
}
