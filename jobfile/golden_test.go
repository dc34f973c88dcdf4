package jobfile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and OPTIONS.md")

// testHost fixes $ncpus, $pagesize and $mb_memory for golden files.
var testHost = Host{NCPUs: 4, PageSize: 4096, MBMemory: 8192}

// testEnv is the environment the corpus is read with (10_env.fio).
func testEnv(name string) (string, bool) {
	v, ok := map[string]string{"GOFIO_TEST_BS": "16k", "GOFIO_TEST_KEY": "rw"}[name]
	return v, ok
}

// corpusFiles lists the corpus and the examples.
func corpusFiles(t testing.TB) []string {
	a, err := filepath.Glob("testdata/corpus/*.fio")
	if err != nil {
		t.Fatal(err)
	}
	b, err := filepath.Glob("../examples/*.fio")
	if err != nil {
		t.Fatal(err)
	}
	if len(a) < 30 {
		t.Fatalf("corpus has %d job files, want at least 30", len(a))
	}
	return append(a, b...)
}

// describe renders what gofio makes of a job file: --showcmd output (or
// its error) and the --parse-only verdict.
func describe(file string) string {
	var b bytes.Buffer
	var warn bytes.Buffer
	in := Input{Files: []string{file}, Getenv: testEnv, Host: &testHost, Warn: &warn}
	var out bytes.Buffer
	if err := ShowCmd(in, &out); err != nil {
		b.WriteString("showcmd error: " + err.Error() + "\n")
	} else {
		b.WriteString(out.String())
	}
	if _, err := Parse(in); err != nil {
		b.WriteString("parse-only error: " + err.Error() + "\n")
	} else {
		b.WriteString("parse-only: ok\n")
	}
	if warn.Len() > 0 {
		b.WriteString("warnings:\n" + warn.String())
	}
	return b.String()
}

// TestShowCmdGolden checks --showcmd output and the --parse-only verdict
// for every corpus job file and example against testdata/golden.
func TestShowCmdGolden(t *testing.T) {
	for _, f := range corpusFiles(t) {
		name := filepath.Base(f)
		if strings.HasPrefix(f, "../examples/") {
			name = "example_" + name
		}
		t.Run(name, func(t *testing.T) {
			got := describe(f)
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".fio")+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./jobfile -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s:\ngot:\n%s\nwant:\n%s", f, got, want)
			}
		})
	}
}

// TestOptionsDoc keeps OPTIONS.md in step with the option table.
func TestOptionsDoc(t *testing.T) {
	got := OptionsMarkdown()
	if *update {
		if err := os.WriteFile("OPTIONS.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("OPTIONS.md")
	if err != nil || string(want) != got {
		t.Errorf("OPTIONS.md is stale; run go test ./jobfile -run TestOptionsDoc -update")
	}
}

// FuzzParse feeds job files to the parser: it must never panic or hang.
func FuzzParse(f *testing.F) {
	for _, file := range corpusFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := Input{Files: []string{"-"}, Stdin: bytes.NewReader(data), Host: &testHost, Getenv: testEnv}
		jobs, err := Parse(in)
		if err == nil && len(jobs) == 0 {
			t.Fatal("no error and no jobs")
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
		}
		in.Stdin = bytes.NewReader(data)
		_ = ShowCmd(in, &bytes.Buffer{})
	})
}
