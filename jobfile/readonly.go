package jobfile

import "fmt"

// checkReadOnly refuses, under --readonly, a job that would write to,
// create or remove a target: one that writes or trims (fio's words and
// check), and, where fio 3.33 runs them and changes the file system, one
// whose engine alters files even on a read (EngineInfo.Alters) or that
// removes its files before each loop (unlink_each_loop). The error names
// the option's file and line.
func checkReadOnly(j *Job, own *section) error {
	refuse := func(name, value, what string) error {
		e := &Error{File: own.file, Line: own.line, Option: name + "=" + value,
			Msg: fmt.Sprintf("job <%s> %s, but gofio is in read-only mode (--readonly)", j.Name, what)}
		if o, ok := j.Setting(name); ok {
			e.File, e.Line = o.File, o.Line
		}
		return e
	}
	switch {
	case j.RW.HasWrite() || j.RW.HasTrim():
		return refuse("rw", string(j.RW), "has write or trim bit set")
	case j.Engine().Alters != "":
		return refuse("ioengine", j.IOEngine, "runs ioengine="+j.IOEngine+", which "+j.Engine().Alters)
	case j.UnlinkEachLoop:
		return refuse("unlink_each_loop", "1", "removes its files before every loop after the first (unlink_each_loop=1)")
	}
	return nil
}
