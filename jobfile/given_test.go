package jobfile

import "testing"

// TestGivenSetting: Given sees an option from [global] or the job's own
// section, whatever its value, and Setting returns the last setting, the
// one in effect, with its line.
func TestGivenSetting(t *testing.T) {
	jobs, err := Parse(Input{Files: []string{writeJob(t, "g.fio", "[global]\nsize=1m\n[a]\nrw=read\nsize=2m\n")}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if !j.Given("size") || !j.Given("rw") || j.Given("iodepth") {
		t.Fatalf("Given: size %v rw %v iodepth %v", j.Given("size"), j.Given("rw"), j.Given("iodepth"))
	}
	o, ok := j.Setting("size")
	if !ok || o.Value != "2m" || o.Line != 5 {
		t.Fatalf("Setting(size) = %+v, %v; want 2m at line 5", o, ok)
	}
	if _, ok := j.Setting("iodepth"); ok {
		t.Fatal("Setting(iodepth) found an option nobody gave")
	}
}

// TestEngineTableRules: a flag of the engine table that only a diskless
// engine can have is set only on diskless ones, and a job's Engine is its
// ioengine's row.
func TestEngineTableRules(t *testing.T) {
	for _, e := range Engines() {
		if e.SizedByFile && !e.Diskless {
			t.Errorf("%s: SizedByFile without Diskless", e.Name)
		}
	}
	j := DefaultJob()
	j.IOEngine = "mmap"
	if e := j.Engine(); e.Name != "mmap" || !e.Maps {
		t.Errorf("Engine() of ioengine=mmap = %+v", e)
	}
}
