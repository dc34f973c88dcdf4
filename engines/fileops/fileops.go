// Package fileops is gofio's file and directory metadata engines, fio's
// engines/fileoperations.c: filecreate, filestat and filedelete (fio 3.33),
// and dircreate, dirstat and dirdelete (fio 3.37). They
// move no data. The first request on each file performs the operation on
// its path: open(O_CREAT|O_RDWR, 0600) and close for filecreate, stat,
// lstat or statx (stat_type) for filestat, unlink for filedelete, mkdir,
// stat and rmdir for the directory engines. Further requests on the same
// file complete at once, as fio's queue does nothing. So the latency the
// run core records for a file is the time of its operation, as fio's
// clat is.
//
// A request counts its full length, as fio's FIO_FAKEIO engines do. The
// engines are synchronous: the run core runs them at depth 1.
// filecreate and the directory engines touch no file before their
// operation (the run core treats them as diskless); filestat and
// filedelete work on files the run core laid out.
package fileops

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// Kind is the operation an Engine performs.
type Kind int

// The metadata engines.
const (
	FileCreate Kind = iota
	FileStat
	FileDelete
	DirCreate
	DirStat
	DirDelete
)

// Engine performs one metadata operation per file.
type Engine struct {
	engines.Sync
	kind     Kind
	statType string
	paths    []string
	done     []bool // the file's operation has run
}

// Opener returns the opener of kind k.
func Opener(k Kind) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) { return open(s, k) }
}

func open(s engines.Setup, k Kind) (engines.Engine, error) {
	if len(s.Paths) != len(s.Files) {
		return nil, fmt.Errorf("fileops: %d paths for %d files", len(s.Paths), len(s.Files))
	}
	e := &Engine{kind: k, statType: "stat", paths: s.Paths, done: make([]bool, len(s.Paths))}
	var err error
	if e.Sync, err = engines.NewSync("fileops", s.Depth, len(s.Paths), true, e.do); err != nil {
		return nil, err
	}
	if s.Job != nil {
		if o, ok := s.Job.EngineConfig().(*Options); ok && o.StatType != "" {
			e.statType = o.StatType
		}
	}
	if k == DirStat || k == DirDelete {
		// The directories these work on must exist first; making them
		// is set-up, not measured.
		for _, p := range s.Paths {
			if err := unix.Mkdir(p, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
				return nil, fmt.Errorf("fileops: mkdir %s: %w", p, err)
			}
		}
	}
	return e, nil
}

func (e *Engine) do(r *engines.Request) int32 {
	switch {
	case r.Op.IsSync():
		return 0
	case e.done[r.File]:
		return int32(len(r.Buf))
	}
	e.done[r.File] = true
	if err := e.operate(e.paths[r.File]); err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return -int32(errno)
		}
		return -int32(unix.EIO)
	}
	return int32(len(r.Buf))
}

// operate performs the engine's operation on path.
func (e *Engine) operate(path string) error {
	var st unix.Stat_t
	switch e.kind {
	case FileCreate:
		fd, err := unix.Open(path, unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		return unix.Close(fd)
	case FileStat, DirStat:
		switch e.statType {
		case "lstat":
			return unix.Lstat(path, &st)
		case "statx":
			var stx unix.Statx_t
			return unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_ALL, &stx)
		}
		return unix.Stat(path, &st)
	case FileDelete:
		return unix.Unlink(path)
	case DirCreate:
		return unix.Mkdir(path, 0o700)
	case DirDelete:
		return unix.Rmdir(path)
	}
	return unix.EINVAL
}

// Close releases nothing.
func (e *Engine) Close() error { return nil }
