package jobfile

import (
	"strings"
	"testing"
)

// TestFilenamesAddUp checks filename= and nrfiles= against fio 3.33's
// str_filename_cb: each filename= adds files (to [global]'s too), an
// nrfiles= before it is overridden and one after it (command line, which
// fio does not sort) keeps the first nrfiles files. Each want is what fio
// 3.33 laid out for the same job here.
func TestFilenamesAddUp(t *testing.T) {
	for _, c := range []struct {
		name    string
		cmdline []string
		file    string
		sets    []string
		want    string
	}{
		{name: "cmdline nrfiles after", cmdline: []string{"--filename=fa:fb:fc", "--nrfiles=2"}, want: "fa:fb"},
		{name: "cmdline nrfiles before", cmdline: []string{"--nrfiles=2", "--filename=fa:fb:fc"}, want: "fa:fb:fc"},
		{name: "cmdline nrfiles above the files", cmdline: []string{"--filename=fa:fb", "--nrfiles=4"}, want: "fa:fb"},
		{name: "cmdline filename twice", cmdline: []string{"--filename=fa", "--filename=fb"}, want: "fa:fb"},
		{name: "job file nrfiles after (sorted before)", file: "[j]\nfilename=fa:fb:fc\nnrfiles=2\n", want: "fa:fb:fc"},
		{name: "job file filename twice", file: "[j]\nfilename=fa\nfilename=fb\n", want: "fa:fb"},
		{name: "global and job", file: "[global]\nfilename=fa\n[j]\nfilename=fb\n", want: "fa:fb"},
		{name: "--set replaces", file: "[global]\nfilename=fa\n[j]\nfilename=fb\n", sets: []string{"filename=zz:yy"}, want: "zz:yy"},
	} {
		in := Input{Host: &testHost, Sets: c.sets}
		if c.file != "" {
			in.Files = []string{writeJob(t, "j.fio", "[global]\nioengine=psync\nsize=96k\n"+c.file)}
		} else {
			in.CmdLine = append([]string{"--name=j", "--ioengine=psync", "--size=96k"}, c.cmdline...)
		}
		jobs, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		j := jobs[0]
		if got := strings.Join(j.Filenames, ":"); got != c.want || j.NrFiles != len(j.Filenames) {
			t.Errorf("%s: files %s (nrfiles %d), want %s", c.name, got, j.NrFiles, c.want)
		}
	}
}
