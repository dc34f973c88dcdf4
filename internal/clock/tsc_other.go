//go:build !amd64

package clock

// rdtsc is not available off amd64; tscUsable keeps it unused.
func rdtsc() uint64 { return 0 }

// tscUsable reports false: the loop reads nanotime.
func tscUsable() bool { return false }
