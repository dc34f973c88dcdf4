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
