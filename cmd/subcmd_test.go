package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestVersionFlags(t *testing.T) {
	code, out, _ := runCmd(t, "--version")
	if code != ExitOK || !strings.HasPrefix(out, "gofio-") || strings.Count(out, "\n") != 1 {
		t.Errorf("--version: exit %d, %q; want one gofio- line", code, out)
	}
	for _, args := range [][]string{{"--version", "--verbose"}, {"version"}} {
		code, out, _ := runCmd(t, args...)
		if code != ExitOK || !strings.HasPrefix(out, "gofio-") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
		for _, w := range []string{"module:       github.com/gofio/gofio", "go:           go1.", "kernel:       Linux", "io_uring:     o"} {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %q:\n%s", args, w, out)
			}
		}
	}
	if code, _, errs := runCmd(t, "--verbose"); code != ExitBadInput || !strings.Contains(errs, "--verbose goes with --version") {
		t.Errorf("--verbose alone: exit %d, %q", code, errs)
	}
}

func TestCompletions(t *testing.T) {
	tests := []struct {
		words     []string
		want, not []string
	}{
		{[]string{""}, []string{"completion", "man", "version"}, []string{completeCmd}},
		{[]string{"--cmdh"}, []string{"--cmdhelp"}, nil},
		{[]string{"--cmdhelp=iodep"}, []string{"--cmdhelp=iodepth", "--cmdhelp=iodepth_batch"}, []string{"--iodepth="}},
		{[]string{"--iod"}, []string{"--iodepth=", "--iodepth_low="}, nil},
		{[]string{"-iod"}, []string{"--iodepth="}, nil},
		{[]string{"--dire"}, []string{"--direct=", "--directory="}, nil},
		{[]string{"--outp"}, []string{"--output=", "--output-format="}, nil},
		{[]string{"--parse"}, []string{"--parse-only"}, []string{"--parse-only="}},
		// Engine options, their engines' packages' included.
		{[]string{"--user"}, []string{"--userspace_reap"}, nil},
		{[]string{"--readf"}, []string{"--readfua="}, nil},
		{[]string{"--libaio_"}, []string{"--libaio_vectored="}, nil},
		{[]string{"--cmdhelp=apptag"}, []string{"--cmdhelp=apptag", "--cmdhelp=apptag_mask"}, nil},
		{[]string{"completion", "f"}, []string{"fish"}, []string{"bash"}},
		{[]string{"job.fio", "x"}, nil, []string{"version"}},
	}
	for _, tt := range tests {
		got := completions(tt.words)
		for _, w := range tt.want {
			if !containsStr(got, w) {
				t.Errorf("completions(%q) lacks %q: %v", tt.words, w, got)
			}
		}
		for _, n := range tt.not {
			if containsStr(got, n) {
				t.Errorf("completions(%q) has %q", tt.words, n)
			}
		}
	}
	code, out, _ := runCmd(t, completeCmd, "--", "--cmdhelp=sqthread_p")
	if code != ExitOK || !strings.Contains(out, "--cmdhelp=sqthread_poll\n") {
		t.Errorf("__complete: exit %d, %q", code, out)
	}
}

// TestCompletionScripts checks each script parses in its shell (those
// installed) and that an unknown shell is refused.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errs := runCmd(t, "completion", sh)
		if code != ExitOK || !strings.Contains(out, "gofio") {
			t.Fatalf("completion %s: exit %d, %s", sh, code, errs)
		}
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s not installed; syntax not checked", sh)
			continue
		}
		f := filepath.Join(t.TempDir(), "gofio."+sh)
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(sh, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, b)
		}
	}
	if code, _, errs := runCmd(t, "completion", "tcsh"); code != ExitBadInput || !strings.Contains(errs, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, %q", code, errs)
	}
	if code, _, _ := runCmd(t, "completion"); code != ExitBadInput {
		t.Errorf("completion without a shell: exit %d", code)
	}
}

// TestBashCompletionLive sources the bash script and completes words as
// bash would, with this test binary's gofio on PATH.
func TestBashCompletionLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gofio")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "gofio"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tests := []struct{ line, want string }{
		{"gofio --cmdhelp=sqthread_p", "sqthread_poll"},
		{"gofio --sqthread_p", "--sqthread_poll"},
		{"gofio comp", "completion"},
		{"gofio --rw=randread --iodepth_l", "--iodepth_low="},
	}
	for _, tt := range tests {
		script := `source <(gofio completion bash); COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; _gofio_complete; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "-c", script, "bash", tt.line)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tt.want+"\n") {
			t.Errorf("%q: %v, completions %q, want %q", tt.line, err, out, tt.want)
		}
	}
}

func TestManPage(t *testing.T) {
	code, out, errs := runCmd(t, "man")
	if code != ExitOK {
		t.Fatalf("man: exit %d, %s", code, errs)
	}
	for _, w := range []string{".TH gofio 1", "completion", "--output-format", "--cmdhelp"} {
		if !strings.Contains(out, w) {
			t.Errorf("man page lacks %q", w)
		}
	}
	if strings.Contains(out, completeCmd) {
		t.Errorf("man page shows the hidden %s", completeCmd)
	}
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestHelpListsCommands: gofio --help lists every command of the command
// table with its usage (diff, merge, version, completion, man), the hidden
// completion helper aside, and a subcommand name as the first argument
// selects exactly the commands listed there.
func TestHelpListsCommands(t *testing.T) {
	var out, errb bytes.Buffer
	st := &State{Stdout: &out, Stderr: &errb}
	if code := st.command(context.Background(), []string{"gofio", "--help"}); code != ExitOK {
		t.Fatalf("--help exit %d: %s", code, errb.String())
	}
	_, cmds, ok := strings.Cut(out.String(), "\nCOMMANDS:\n")
	if !ok {
		t.Fatalf("--help has no COMMANDS section:\n%s", out.String())
	}
	cmds, _, _ = strings.Cut(cmds, "\n\n")
	var listed []string
	for _, c := range st.subcommands() {
		if c.Hidden {
			if strings.Contains(cmds, c.Name) {
				t.Errorf("--help lists the hidden %s", c.Name)
			}
			continue
		}
		listed = append(listed, c.Name)
		if !strings.Contains(cmds, "   "+c.Name+" ") || !strings.Contains(cmds, c.Usage) {
			t.Errorf("--help lacks %s (%s):\n%s", c.Name, c.Usage, cmds)
		}
	}
	for _, want := range []string{"diff", "merge", "version", "completion", "man"} {
		if !slices.Contains(listed, want) {
			t.Errorf("the command table lacks %s", want)
		}
		if got := isSubcommand(want); got != (want != diffCmd) {
			t.Errorf("isSubcommand(%q) = %v", want, got)
		}
	}
	if isSubcommand(completeCmd) != true || isSubcommand("job.fio") {
		t.Error("isSubcommand: the completion helper is one, a job file is not")
	}
}
