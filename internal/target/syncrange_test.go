package target

import "testing"

// TestSyncRanges checks the spans by themselves: writes widen a file's
// span, a sync empties it, and an empty span syncs nothing.
func TestSyncRanges(t *testing.T) {
	r := NewSyncRanges(2)
	if off, n := r.Span(0); n != 0 || off != unwritten {
		t.Errorf("fresh span %d+%d, want nothing", off, n)
	}
	r.Wrote(0, 8192, 4096)
	r.Wrote(0, 0, 4096)
	r.Wrote(1, 4096, 512)
	if off, n := r.Span(0); off != 0 || n != 12288 {
		t.Errorf("file 0: %d+%d, want 0+12288 (first write to the end of the last)", off, n)
	}
	r.Synced(0)
	if _, n := r.Span(0); n != 0 {
		t.Errorf("file 0 after its sync: %d bytes, want 0", n)
	}
	if off, n := r.Span(1); off != 4096 || n != 512 {
		t.Errorf("file 1: %d+%d, want 4096+512 (another file's sync leaves it)", off, n)
	}
}
