package run

import (
	"testing"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
)

// TestOffsetGenBlockSizes checks that the offset generator takes its block
// sizes from jobfile's Job.BSMin/BSMax, on the cases where the run core's
// own copies used to disagree with them: bsrange= next to the default bs=
// (a single-size range issued the default 4k), and a 0% bssplit entry
// (never issued, yet fio's min_bs, which the byte budget is cut to).
func TestOffsetGenBlockSizes(t *testing.T) {
	const k = 1024
	bsrange := testJob("", "r", jobfile.RWRandRead, "null")
	bsrange.BSRangeMin = [jobfile.NumDirs]uint64{8 * k, 8 * k, 8 * k}
	bsrange.BSRangeMax = [jobfile.NumDirs]uint64{8 * k, 8 * k, 8 * k}
	split := testJob("", "s", jobfile.RWRandRead, "null")
	split.BSSplit[jobfile.DirRead] = []jobfile.BSSplitEntry{{BS: 4 * k, Pct: 0}, {BS: 64 * k, Pct: 100}}
	for _, tt := range []struct {
		name   string
		job    *jobfile.Job
		bsMin  uint64
		issued uint64 // the only size blockSize may return
	}{
		{"single-size bsrange", bsrange, 8 * k, 8 * k},
		{"0% bssplit entry", split, 4 * k, 64 * k},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := iogen.NewOffsets(tt.job, []iogen.Region{{Size: 1 << 30, End: 1 << 30}}, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			d := jobfile.DirRead
			if g.MinBS[d] != tt.job.BSMin(d) || g.MinBS[d] != tt.bsMin || g.MaxBS[d] != tt.job.BSMax(d) {
				t.Errorf("generator bs %d-%d, job %d-%d, want min %d", g.MinBS[d], g.MaxBS[d], tt.job.BSMin(d), tt.job.BSMax(d), tt.bsMin)
			}
			for i := 0; i < 100; i++ {
				if _, _, _, n, ok := g.Fill(); !ok || n != tt.issued {
					t.Fatalf("fill = %d (ok %v), want %d", n, ok, tt.issued)
				}
			}
		})
	}
}
