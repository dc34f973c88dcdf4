package iolog

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

// Writer writes a version 3 log as fio 3.33's write_iolog= does: the
// header, then one line per file action and per I/O, each with the
// microseconds since the writer was created. fio opens the file for
// appending, and so does Writer. A line is formatted into a reused
// buffer: writing allocates nothing.
type Writer struct {
	f     *os.File
	w     *bufio.Writer
	line  []byte
	names [][]byte // file names by index
	err   error
}

// Create opens path for appending and writes the header and an add line
// for every file, at time addUsec.
func Create(path string, files []string, addUsec uint64) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write_iolog=%s: %w", path, err)
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 8192), line: make([]byte, 0, 512)}
	w.w.WriteString(Header3 + "\n")
	for i, name := range files {
		w.names = append(w.names, []byte(name))
		w.FileAction(addUsec, i, AddFile)
	}
	return w, nil
}

// FileAction writes "TIME FILE add|open|close".
func (w *Writer) FileAction(usec uint64, file int, k Kind) {
	w.write(append(w.head(usec, file, k), '\n'))
}

// head formats "TIME FILE KIND" into the reused line buffer.
func (w *Writer) head(usec uint64, file int, k Kind) []byte {
	b := strconv.AppendUint(w.line[:0], usec, 10)
	b = append(b, ' ')
	b = append(b, w.names[file]...)
	b = append(b, ' ')
	return append(b, kindNames[k]...)
}

// IO writes "TIME FILE DIR OFFSET LENGTH" for an I/O of kind k.
func (w *Writer) IO(usec uint64, file int, k Kind, off, n uint64) {
	b := append(w.head(usec, file, k), ' ')
	b = strconv.AppendUint(b, off, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, n, 10)
	b = append(b, '\n')
	w.write(b)
}

func (w *Writer) write(b []byte) {
	w.line = b[:0]
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// Close flushes and closes the file, returning the first write error.
func (w *Writer) Close() error {
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}
