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

// TestZoneCounts checks fio's z suffix (parse.c's FIO_OPT_STR_VAL_ZONE and
// zbd_recalc_options_with_zone_granularity): size, io_size, offset,
// offset_increment and zoneskip given as a count of zones are that many
// zone sizes, a clone's offset adds its share of offset_increment, a count
// without a zone size leaves the value unset, and other text before the z
// is refused as fio refuses it.
func TestZoneCounts(t *testing.T) {
	j := parseOne(t, "zonemode=strided\nzonesize=256k\nsize=3z\nio_size=2z\noffset=1z\nzoneskip=2z\n")
	if j.Size != 3*256<<10 || j.IOSize != 2*256<<10 || j.Offset != 256<<10 || j.Zones.Skip != 2*256<<10 {
		t.Errorf("size %d io_size %d offset %d zoneskip %d", j.Size, j.IOSize, j.Offset, j.Zones.Skip)
	}
	jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nzonemode=strided\nzonesize=1m\nsize=1z\noffset=2z\noffset_increment=3z\nnumjobs=2\n")}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Offset != 2<<20 || jobs[1].Offset != (2+3)<<20 {
		t.Errorf("offsets %d and %d, want %d and %d", jobs[0].Offset, jobs[1].Offset, 2<<20, 5<<20)
	}
	// Without a zone size the count stays a count and the value unset
	// (fio's recalc skips a file with zone size 0).
	if j := parseOne(t, "offset=4z\n"); j.Offset != 0 || j.Zones.Counts.Offset != 4 {
		t.Errorf("offset=4z without zones: offset %d, count %d", j.Offset, j.Zones.Counts.Offset)
	}
	for _, v := range []string{"size=3kz", "offset=z", "io_size=0x10z", "zoneskip=1.5z"} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+v+"\n")}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), "unexpected zone value") {
			t.Errorf("%s: error %v, want unexpected zone value", v, err)
		}
	}
	// zone_reset_threshold and zone_reset_frequency: one value in 0..1.
	if j := parseOne(t, "zone_reset_threshold=0.25\nzone_reset_frequency=0.5\n"); j.Zones.ResetThreshold != 0.25 || j.Zones.ResetFrequency != 0.5 {
		t.Errorf("zone_reset_*: %v %v", j.Zones.ResetThreshold, j.Zones.ResetFrequency)
	}
	for _, v := range []string{"zone_reset_threshold=1.5", "zone_reset_frequency=0.1:0.2"} {
		if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+v+"\n")}, Host: &testHost}); err == nil {
			t.Errorf("%s accepted", v)
		}
	}
}
