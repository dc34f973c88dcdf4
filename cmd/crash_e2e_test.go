package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/loopdev"
)

// crashJob is the verify job of the crash test: sequential, so that
// fio's verify_only replays the same blocks; the writing run is rate
// limited, so that it is killed part way.
func crashJob(dev, engine string, extra ...string) string {
	return strings.Join(append([]string{"[crash]", "filename=" + dev, "rw=write", "bs=4k", "size=16m",
		"ioengine=" + engine, "iodepth=8", "direct=1", "verify=crc32c"}, extra...), "\n") + "\n"
}

// stateMarked counts the completed blocks a gofio verify state file marks.
func stateMarked(t *testing.T, path string, blocks int) int {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < blocks {
		return 0
	}
	return bytes.Count(b[len(b)-blocks:], []byte{1})
}

type verifyCounts struct {
	bad, read int
}

func jsonVerifyCounts(t *testing.T, out string) verifyCounts {
	t.Helper()
	var r struct {
		Jobs []struct {
			TotalErr int `json:"total_err"`
			Read     struct {
				TotalIOs int `json:"total_ios"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil || len(r.Jobs) != 1 {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	return verifyCounts{r.Jobs[0].TotalErr, r.Jobs[0].Read.TotalIOs}
}

// TestCrashVerify kills a verify write job (verify=crc32c, do_verify=0,
// verify_state_save=1) with SIGKILL part way through a loop device. Then
// verify_only=1 names every block never written and passes every written
// one, exactly as fio 3.33's verify_only does on the same device, and
// verify_state_load=1 checks exactly the blocks whose writes completed
// before the kill: none of them may fail.
func TestCrashVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the long end-to-end runs")
	}
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			dev := loopdev.New(t, 16<<20)
			dir := t.TempDir()
			write := filepath.Join(dir, "write.fio")
			if err := os.WriteFile(write, []byte(crashJob(dev.Path, engine, "do_verify=0", "verify_state_save=1", "rate_iops=2000")), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gofioBinary(t), write)
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(dir, "local-crash-0-verify.state")
			const blocks = 4096
			deadline := time.Now().Add(20 * time.Second)
			for stateMarked(t, state, blocks) < 400 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Kill() // SIGKILL
			cmd.Wait()
			marked := stateMarked(t, state, blocks)
			if marked < 400 || marked >= blocks {
				t.Fatalf("%d blocks completed before the kill; want the job killed part way", marked)
			}

			verify := filepath.Join(dir, "verify.fio")
			if err := os.WriteFile(verify, []byte(crashJob(dev.Path, engine, "verify_only=1", "continue_on_error=verify")), 0o644); err != nil {
				t.Fatal(err)
			}
			r := execGofio(t, dir, "--output-format=json", verify)
			g := jsonVerifyCounts(t, r.stdout)
			lines := strings.Count(r.stderr, "verify: magic mismatch")
			// Blocks in flight at the kill may have reached the device:
			// they pass, and are the only written blocks the state lacks.
			if g.read != blocks || g.bad != lines || g.bad > blocks-marked || g.bad < blocks-marked-8 {
				t.Errorf("verify_only: %d bad of %d read, %d named; want the %d never completed (up to 8 fewer in flight)", g.bad, g.read, lines, blocks-marked)
			}

			load := filepath.Join(dir, "load.fio")
			if err := os.WriteFile(load, []byte(crashJob(dev.Path, engine, "verify_only=1", "verify_state_load=1")), 0o644); err != nil {
				t.Fatal(err)
			}
			r = execGofio(t, dir, "--output-format=json", load)
			l := jsonVerifyCounts(t, r.stdout)
			if r.code != 0 || l.bad != 0 || l.read != marked {
				t.Errorf("verify_state_load: exit %d, %d bad of %d read; want all %d completed blocks good\n%s", r.code, l.bad, l.read, marked, r.stderr)
			}

			if _, err := exec.LookPath("fio"); err != nil {
				t.Log("fio not installed: no side-by-side")
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			fj := filepath.Join(dir, "fio.fio")
			if err := os.WriteFile(fj, []byte(crashJob(dev.Path, engine, "verify_only=1", "continue_on_error=verify")), 0o644); err != nil {
				t.Fatal(err)
			}
			fio := exec.CommandContext(ctx, "fio", "--output-format=json", fj)
			fio.Dir = dir // fio saves its own verify state (local-crash-0-verify.state) in its working directory
			out, err := fio.Output()
			if err != nil {
				t.Fatalf("fio: %v", err)
			}
			f := jsonVerifyCounts(t, string(out))
			if f != g {
				t.Errorf("fio verify_only: %d bad of %d; gofio: %d bad of %d", f.bad, f.read, g.bad, g.read)
			}
			t.Logf("%s: killed after %d completed blocks; verify_only: gofio %d bad, fio %d bad; state-loaded verify: %d checked, 0 bad", engine, marked, g.bad, f.bad, l.read)
		})
	}
}
