package run

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/gofio/gofio/jobfile"
)

// execString runs command as fio's exec_string does for exec_prerun and
// exec_postrun (mode "prerun" or "postrun"): through /bin/sh -c, with
// " > NAME.MODE.txt 2>&1" appended, after fio's line on info saying where
// the output goes. As with fio's system(), the redirection applies to the
// command's last simple command only: what the rest writes goes to info,
// or to warn when info is discarded (output formats other than normal), so
// that stdout stays the report's. It returns the shell's exit status as
// an error when it is not 0.
func execString(e *env, j *jobfile.Job, command, mode string) error {
	file := fmt.Sprintf("%s.%s.txt", j.Name, mode)
	if e.opts.Info != nil {
		fmt.Fprintf(e.opts.Info, "%s : Saving output of %s in %s\n", j.Name, mode, file)
	}
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("%s > %s 2>&1", command, file))
	out := e.opts.Info
	if out == nil || out == io.Discard {
		out = e.opts.Warn
	}
	cmd.Stdout, cmd.Stderr = out, e.opts.Warn
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("exec_%s=%q: %w", mode, command, err)
	}
	return nil
}
