package jobfile

import (
	"reflect"
	"strings"
	"testing"
)

// TestZonedDistribution checks random_distribution=zoned and zoned_abs as
// fio 3.33's zone_split_ddir reads them (each case checked against fio
// 3.33): the ranges every direction gets, the shares of left-out sizes,
// and the refusals with the job file's line.
func TestZonedDistribution(t *testing.T) {
	const missing = 0 // a left-out size that nothing was left to share
	ok := []struct {
		v    string
		want []ZoneSplit
	}{
		{"zoned:50/10:30/20:20/70", []ZoneSplit{{Access: 50, SizePct: 10}, {Access: 30, SizePct: 20}, {Access: 20, SizePct: 70}}},
		// One range without a size gets 100 - 100: fio sends every I/O
		// to block 0.
		{"zoned:100", []ZoneSplit{{Access: 100, SizePct: missing}}},
		{"zoned:50/10:50", []ZoneSplit{{Access: 50, SizePct: 10}, {Access: 50, SizePct: 90}}},
		{"zoned:40/10:40:20", []ZoneSplit{{Access: 40, SizePct: 10}, {Access: 40, SizePct: 45}, {Access: 20, SizePct: 45}}},
		// A size over 100 is 100; a size atoi reads as 0 is left out.
		{"zoned:50/150:50", []ZoneSplit{{Access: 50, SizePct: 100}, {Access: 50, SizePct: missing}}},
		{"zoned:50/10:50/abc", []ZoneSplit{{Access: 50, SizePct: 10}, {Access: 50, SizePct: 90}}},
		// An empty entry ends the list.
		{"zoned:100/30::50/10", []ZoneSplit{{Access: 100, SizePct: 30}}},
		{"zoned_abs:60/128k:40/1m", []ZoneSplit{{Access: 60, Size: 128 << 10}, {Access: 40, Size: 1 << 20}}},
		{"zoned_abs:50/64k:50", []ZoneSplit{{Access: 50, Size: 64 << 10}, {Access: 50}}},
	}
	for _, c := range ok {
		j := parseOne(t, "rw=randread\nrandom_distribution="+c.v+"\n")
		kind, _, _ := strings.Cut(c.v, ":")
		if j.RandomDistribution.Kind != kind {
			t.Errorf("%s: kind %q", c.v, j.RandomDistribution.Kind)
		}
		for d := DirRead; d < NumDirs; d++ {
			if got := j.RandomDistribution.Zones[d]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: %s ranges %+v, want %+v", c.v, d, got, c.want)
			}
		}
		if u := j.UnrunOptions(); len(u) != 0 {
			t.Errorf("%s: still recorded as not run: %q", c.v, u)
		}
	}
	bad := map[string]string{
		"zoned":                     "want zoned:ACCESS/SIZE",
		"zoned:60/10:60/10":         "zone_split percentages add to more than 100%",
		"zoned:50/60:50/60":         "zone_split percentages add to more than 100%",
		"zoned:50/10:40/20":         "access percentage don't add up to 100 for zoned random distribution (got=90)",
		"zoned:50/10::50/90":        "(got=50)",
		"zoned:x/10:100/90":         `the access percentage "x" is not a number`,
		"zoned_abs:100/1q":          `the size "1q" is not a number`,
		"zoned:50/10:50/90,100/100": "a comma is not allowed here",
		"zoned_abs:100/1m,100/1m":   "a comma is not allowed here",
	}
	for v, want := range bad {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\nrw=randread\nrandom_distribution="+v+"\n")}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "j.fio:4: random_distribution=") {
			t.Errorf("%s: err = %v, want j.fio:4 and %q", v, err, want)
		}
	}
}
