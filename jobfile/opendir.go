package jobfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// addDirFiles adds the regular files under j.OpenDir, recursively, ahead
// of filename='s, as fio's opendir callback does while it parses the job:
// in the order the directory lists them, each named as the directory,
// '/' and its name, symbolic links and other files left out. It says how
// many files the job has then on warn, as fio does on stdout.
func addDirFiles(j *Job, warn io.Writer) error {
	var names []string
	if err := walkDir(j.OpenDir, &names); err != nil {
		e := &Error{File: j.File, Line: j.Line, Option: "opendir=" + j.OpenDir, Msg: err.Error()}
		if o, ok := j.Setting("opendir"); ok {
			e.File, e.Line = o.File, o.Line
		}
		return e
	}
	if len(names) == 0 {
		e := &Error{File: j.File, Line: j.Line, Option: "opendir=" + j.OpenDir,
			Msg: "no regular file in the directory or below it (fio 3.33 runs the job with no files, doing nothing)"}
		if o, ok := j.Setting("opendir"); ok {
			e.File, e.Line = o.File, o.Line
		}
		return e
	}
	j.Filenames = append(names, j.Filenames...)
	j.NrFiles = len(j.Filenames)
	if !j.Given("openfiles") || j.OpenFiles > j.NrFiles {
		j.OpenFiles = j.NrFiles
	}
	if warn != nil {
		fmt.Fprintf(warn, "fio: opendir added %d files\n", j.NrFiles)
	}
	return nil
}

// walkDir appends the regular files under dir to names, as fio's
// recurse_dir: directory order, no sorting, lstat's view of each entry.
func walkDir(dir string, names *[]string) error {
	f, err := os.Open(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("opendir(%s): %w", dir, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("readdir(%s): %w", dir, err)
	}
	for _, e := range entries {
		path := dir + "/" + e.Name()
		switch t := e.Type(); {
		case t.IsRegular():
			*names = append(*names, path)
		case t.IsDir():
			if err := walkDir(path, names); err != nil {
				return err
			}
		}
	}
	return nil
}
