package jobfile

import (
	"testing"

	"github.com/gofio/gofio/sched"
)

// TestDerivedBlockSizes pins the block-size facts every package now reads
// from Job, on the cases where the old copies disagreed (0% bssplit
// entries, trim, verify reads, bsrange next to the default bs). Each has
// one answer, fio's: min_bs/max_bs per direction (init.c fixup_options,
// options.c bssplit_ddir) and td_min_bs/td_max_bs over read, write and
// trim.
func TestDerivedBlockSizes(t *testing.T) {
	const k = 1024
	type dirs = [NumDirs]uint64
	tests := []struct {
		name         string
		text         string
		bsMin, bsMax dirs
		minBS, maxBS uint64
	}{
		// A 0% entry counts: fio's min_bs is 4k though no 4k I/O is issued.
		{"bssplit 0% entry", "rw=randread\nbssplit=4k/0:64k/100\n",
			dirs{4 * k, 4 * k, 4 * k}, dirs{64 * k, 64 * k, 64 * k}, 4 * k, 64 * k},
		// Trim's block size counts for td_min_bs whatever rw= is.
		{"trim direction", "rw=read\nbs=16k,16k,4k\n",
			dirs{16 * k, 16 * k, 4 * k}, dirs{16 * k, 16 * k, 4 * k}, 4 * k, 16 * k},
		// A write job's verify reads use the read value, and count for
		// td_min_bs (trim takes the write value, as in fio).
		{"verify reads", "rw=write\nverify=crc32c\nbs=8k,16k\n",
			dirs{8 * k, 16 * k, 16 * k}, dirs{8 * k, 16 * k, 16 * k}, 8 * k, 16 * k},
		// bsrange= wins over the default bs=4k, even as a single size.
		{"bsrange over bs", "rw=read\nbsrange=8k-8k,8k-32k,8k-8k\n",
			dirs{8 * k, 8 * k, 8 * k}, dirs{8 * k, 32 * k, 8 * k}, 8 * k, 32 * k},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nioengine=null\nsize=1m\n"+tt.text)}, Host: &testHost})
			if err != nil {
				t.Fatal(err)
			}
			j := jobs[0]
			for d := DirRead; d < NumDirs; d++ {
				if j.BSMin(d) != tt.bsMin[d] || j.BSMax(d) != tt.bsMax[d] {
					t.Errorf("%s: BSMin/BSMax = %d/%d, want %d/%d", d, j.BSMin(d), j.BSMax(d), tt.bsMin[d], tt.bsMax[d])
				}
			}
			if j.MinBS() != tt.minBS || j.MaxBS() != tt.maxBS {
				t.Errorf("MinBS/MaxBS = %d/%d, want %d/%d", j.MinBS(), j.MaxBS(), tt.minBS, tt.maxBS)
			}
		})
	}
}

// TestDerivedPolicyAndPercentiles checks the task-work policy and the
// default percentile list a job carries.
func TestDerivedPolicyAndPercentiles(t *testing.T) {
	for _, tt := range []struct {
		opt  string
		want sched.Policy
	}{{"", sched.Priority}, {"tw_priority=1\n", sched.Priority}, {"tw_priority=0\n", sched.FIFO}} {
		jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nioengine=null\nsize=1m\n"+tt.opt)}, Host: &testHost})
		if err != nil {
			t.Fatal(err)
		}
		if got := jobs[0].Policy(); got != tt.want {
			t.Errorf("%q: Policy() = %v, want %v", tt.opt, got, tt.want)
		}
		if got, want := jobs[0].PercentileList, DefaultPercentiles(); len(got) != len(want) || got[len(got)-1] != 99.99 {
			t.Errorf("%q: PercentileList = %v, want %v", tt.opt, got, want)
		}
	}
	a := DefaultPercentiles()
	a[0] = 42
	if DefaultPercentiles()[0] != 1 {
		t.Error("DefaultPercentiles returned a shared slice")
	}
}
