package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestETANewline checks --eta-newline: the status line ends with a newline
// once per period and is rewritten in place ('\r') in between.
func TestETANewline(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{}
	p.State.Store('R')
	e := NewETA(&b, []*Progress{p}, 1024, 0)
	e.NewlineEvery = time.Second
	for _, s := range []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second} {
		e.Tick(s)
	}
	out := b.String()
	if n, r := strings.Count(out, "\n"), strings.Count(out, "\r"); n != 2 || r != 2 {
		t.Errorf("%d newlines and %d carriage returns, want 2 and 2: %q", n, r, out)
	}
}
