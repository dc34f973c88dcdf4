package jobfile

import (
	"strings"
	"testing"
	"time"
)

func TestProfileTiobenchJobs(t *testing.T) {
	jobs, err := Parse(Input{CmdLine: []string{"--ioengine=psync", "--randseed=7", "--profile=tiobench",
		"--size=8", "--dir=/scratch", "--block=8192", "--numruns=2", "--threads=3"}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 12 {
		t.Fatalf("got %d jobs, want 4 jobs x threads=3", len(jobs))
	}
	names := []string{"seqwrite", "randwrite", "seqread", "randread"}
	rws := []RW{"write", "randwrite", "read", "randread"}
	for i, j := range jobs {
		k := i / 3
		if j.Name != names[k] || j.RW != rws[k] {
			t.Errorf("job %d is %s rw=%s, want %s rw=%s", i, j.Name, j.RW, names[k], rws[k])
		}
		if j.Size != 8<<20 || j.BS[0] != 8192 || j.Loops != 2 || j.NumJobs != 3 {
			t.Errorf("%s: size=%d bs=%d loops=%d numjobs=%d, want 8 MiB, 8192, 2, 3", j.Name, j.Size, j.BS[0], j.Loops, j.NumJobs)
		}
		if strings.Join(j.Directory, ":") != "/scratch" || strings.Join(j.Filenames, ":") != ".fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4" {
			t.Errorf("%s: directory=%v filename=%v", j.Name, j.Directory, j.Filenames)
		}
		// The profile's ioengine=sync wins over the command line's;
		// the command line's randseed, which it does not set, stays.
		if j.IOEngine != "sync" || j.RandSeed != 7 || !j.Direct || !j.Thread || !j.GroupReporting || !j.Overwrite || j.Runtime != 600*time.Second {
			t.Errorf("%s: ioengine=%s randseed=%d direct=%v thread=%v group_reporting=%v overwrite=%v runtime=%v",
				j.Name, j.IOEngine, j.RandSeed, j.Direct, j.Thread, j.GroupReporting, j.Overwrite, j.Runtime)
		}
		if first := i%3 == 0; j.Stonewall != (first && k > 0) {
			t.Errorf("%s #%d: stonewall=%v", j.Name, i, j.Stonewall)
		}
		if j.EndFsync != (k < 2) {
			t.Errorf("%s: end_fsync=%v, want it on the two write jobs only", j.Name, j.EndFsync)
		}
	}
}

func TestProfileTiobenchDefaultsAfterOtherJobs(t *testing.T) {
	// fio's default: size=4*1024*$mb_memory bytes in ./, after the
	// command line's own jobs. With --profile=tiobench, --size is the
	// profile's (in MiB), so the own job is sized by filesize=.
	jobs, err := Parse(Input{CmdLine: []string{"--name=mine", "--ioengine=null", "--filesize=1m", "--profile=tiobench"}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 5 || jobs[0].Name != "mine" || jobs[1].Name != "seqwrite" {
		t.Fatalf("jobs: %d, first %s, second %s", len(jobs), jobs[0].Name, jobs[1].Name)
	}
	want := uint64(4*1024) * uint64(testHost.MBMemory)
	for _, j := range jobs[1:] {
		if j.Size != want || j.BS[0] != 4096 || j.Loops != 1 || strings.Join(j.Directory, ":") != "./" || j.NumJobs != 1 {
			t.Errorf("%s: size=%d bs=%d loops=%d directory=%v numjobs=%d, want %d 4096 1 ./ 1", j.Name, j.Size, j.BS[0], j.Loops, j.Directory, j.NumJobs, want)
		}
	}
}

func TestProfileErrorsAndJobFileProfile(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile=act"}, "--profile=act: fio's act profile is not run by gofio: it needs raw devices"},
		{[]string{"--profile=x"}, "--profile=x: fio: profile 'x' not found"},
		{[]string{"--profile=tiobench", "--block=big"}, "--block=big: tiobench profile: block needs a non-negative integer"},
	} {
		_, err := Parse(Input{CmdLine: c.args, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	// In a job file profile= is stored and unused, as in fio 3.33.
	jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nioengine=null\nsize=1m\nprofile=act\n")}, Host: &testHost})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("job file profile=act: %d jobs, %v", len(jobs), err)
	}
}

func TestProfileCmdHelp(t *testing.T) {
	var b strings.Builder
	if err := ProfileCmdHelp(&b, "tiobench", "all"); err != nil {
		t.Fatal(err)
	}
	want := "size                    : Size in MiB\nblock                   : Block size in bytes\nnumruns                 : Number of runs\ndir                     : Test directory\nthreads                 : Number of Threads\n"
	if b.String() != want {
		t.Errorf("all:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	_ = ProfileCmdHelp(&b, "tiobench", "blok")
	want = "No such command: blok - showing closest match\n               block: Block size in bytes\n                type: integer value (opt=100)\n             default: 4096\n               valid: only for profile 'tiobench'\n               range: min=0, max=-1\n\n"
	if b.String() != want {
		t.Errorf("blok:\n%q\nwant\n%q", b.String(), want)
	}
}
