package capacity

// Point is one point of a latency curve: one row of a sweep, one side.
type Point struct {
	// Label is the row's sweep value as the table prints it: "64", "70%".
	Label string
	// IODepth is the iodepth the point ran at.
	IODepth int
	// RateIOPS is the I/Os a second the point was offered (the rate of a
	// --sweep rate_iops= row, every direction and job summed); 0 when
	// not rated.
	RateIOPS float64
	// IOPS is the mean of the repeats' IOPS, as the comparison's.
	IOPS float64
	// AvgUs is the mean latency in µs, the repeats' means averaged, and
	// Pcts the percentiles PctList names, in µs, of the latency
	// histograms of all repeats merged.
	AvgUs float64
	Pcts  [len(PctList)]float64
	// Response says the latency is the response latency of an open-loop
	// job, from each I/O's intended time, not fio's.
	Response bool
}

// PctList are the percentiles a Point holds: those an objective may name.
var PctList = [...]float64{50, 90, 99, 99.9, 99.99}

// Value returns the point's figure of the statistic stat ("avg", "p50",
// ..., "p99.99"), in µs; 0 for an unknown one.
func (p Point) Value(stat string) float64 {
	if stat == "avg" {
		return p.AvgUs
	}
	for i, q := range PctList {
		if pct, ok := stats[stat]; ok && pct == q {
			return p.Pcts[i]
		}
	}
	return 0
}

// MinKnee is the smallest difference of scaled IOPS and scaled latency
// that makes a knee: a curve closer to the diagonal is a straight line
// within 1% of its scale.
const MinKnee = 0.01

// Knee returns the index of the knee of the curve of statistic stat
// against IOPS, points in sweep order, or -1 where it has none. The
// method is Kneedle's (Satopää, Albrecht, Irwin and Raghavan, "Finding a
// 'Kneedle' in a Haystack", 2011), offline and without smoothing: IOPS
// and latency are each scaled to [0, 1] over the points, and the knee is
// the point where scaled IOPS less scaled latency is largest: on the
// scaled axes, the point farthest to the right of the diagonal. On a
// curve whose latency stays flat while IOPS grow and then climbs while
// they do not, that is the first point of the climb's foot. A curve of
// fewer than three points, one whose IOPS or latency do not vary, or one
// whose largest difference is below MinKnee (latency rising as fast as
// IOPS, or faster) has none.
func Knee(points []Point, stat string) int {
	if len(points) < 3 {
		return -1
	}
	xlo, xhi := points[0].IOPS, points[0].IOPS
	ylo, yhi := points[0].Value(stat), points[0].Value(stat)
	for _, p := range points[1:] {
		xlo, xhi = min(xlo, p.IOPS), max(xhi, p.IOPS)
		y := p.Value(stat)
		ylo, yhi = min(ylo, y), max(yhi, y)
	}
	if xhi <= xlo || yhi <= ylo {
		return -1
	}
	best, bestD := -1, MinKnee
	for i, p := range points {
		d := (p.IOPS-xlo)/(xhi-xlo) - (p.Value(stat)-ylo)/(yhi-ylo)
		if d > bestD {
			best, bestD = i, d
		}
	}
	return best
}
