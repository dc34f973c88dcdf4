package iogen

import "testing"

// TestSimpleRandIsTheGeneralRules checks that Fill's one-call path for
// plain random jobs chooses what the general rules choose, I/O by I/O,
// through map-full passes, time_based restarts, an offset= region, a file
// shorter than the region and norandommap's repeats.
func TestSimpleRandIsTheGeneralRules(t *testing.T) {
	for _, c := range []struct {
		name, job string
		regions   []Region
	}{
		{"randread", "rw=randread\nbs=4k\nsize=1m\n", []Region{{Size: 1 << 20, End: 1 << 20}}},
		{"randwrite 8k", "rw=randwrite\nbs=8k\nsize=1m\n", []Region{{Size: 1 << 20, End: 1 << 20}}},
		{"randtrim", "rw=randtrim\nbs=4k\nsize=256k\n", []Region{{Size: 256 << 10, End: 256 << 10}}},
		{"sequential service", "rw=randread\nbs=4k\nsize=256k\nfile_service_type=sequential\n", []Region{{Size: 256 << 10, End: 256 << 10}}},
		{"norandommap", "rw=randread\nbs=4k\nsize=1m\nnorandommap\n", []Region{{Size: 1 << 20, End: 1 << 20}}},
		{"time_based", "rw=randread\nbs=4k\nsize=256k\ntime_based\nruntime=1\n", []Region{{Size: 256 << 10, End: 256 << 10}}},
		{"offset region", "rw=randread\nbs=4k\nsize=256k\n", []Region{{Base: 64 << 10, Size: 256 << 10, End: 300 << 10}}},
		{"odd size", "rw=randread\nbs=4k\nsize=1000k\n", []Region{{Size: 1000 << 10, End: 999 << 10}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := parse(t, "[j]\nioengine=null\n"+c.job)[0]
			fast, err := NewOffsets(j, append([]Region(nil), c.regions...), 7, 1)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := NewOffsets(j, append([]Region(nil), c.regions...), 7, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !fast.simpleRand {
				t.Fatal("not a simple random job")
			}
			slow.simpleRand = false
			passes := 0
			for i := 0; i < 5000; i++ {
				fd, ff, fo, fn, fok := fast.Fill()
				sd, sf, so, sn, sok := slow.Fill()
				if fd != sd || ff != sf || fo != so || fn != sn || fok != sok {
					t.Fatalf("I/O %d: fast %v %d %d %d %v, general %v %d %d %d %v", i, fd, ff, fo, fn, fok, sd, sf, so, sn, sok)
				}
				if !fok {
					passes++
					fast.NewPass()
					slow.NewPass()
				}
			}
			if j.TimeBased == (passes > 0) && !j.NoRandomMap {
				t.Errorf("%d passes ended in 5000 I/Os of a %s job", passes, c.name)
			}
		})
	}
	for _, job := range []string{"rw=randrw\n", "rw=randread:4\n", "rw=randread\nbsrange=4k-16k\n", "rw=read\n",
		"rw=randread\nrandom_distribution=zipf:1.2\n", "rw=randread\nrandom_generator=lfsr\n", "rw=randtrimwrite\n",
		"rw=randread\nfile_service_type=random\n", "rw=randread\nfile_service_type=zipf:1.1\n"} {
		j := parse(t, "[j]\nioengine=null\nsize=1m\n"+job)[0]
		g, err := NewOffsets(j, []Region{{Size: 1 << 20, End: 1 << 20}}, 7, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.simpleRand {
			t.Errorf("%q takes the simple path", job)
		}
	}
}
