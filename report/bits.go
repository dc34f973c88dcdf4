package report

import "math/bits"

func leadingZeros64(v uint64) int { return bits.LeadingZeros64(v) }
