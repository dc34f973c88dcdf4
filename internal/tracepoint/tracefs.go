package tracepoint

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Unavailable is why a kernel tracer cannot measure here; its text is the
// one-line reason the run's note and the JSON give.
type Unavailable struct{ Reason string }

func (u *Unavailable) Error() string { return u.Reason }

// Unavailablef returns an *Unavailable whose reason is the formatted text.
func Unavailablef(format string, a ...any) error {
	return &Unavailable{Reason: fmt.Sprintf(format, a...)}
}

// Mount returns where tracefs is mounted according to the mount table
// mountinfo (/proc/self/mountinfo), mounting it on mountAt (Default when
// empty) when none is. Every error is an *Unavailable.
func Mount(mountinfo, mountAt string) (string, error) {
	if mountAt == "" {
		mountAt = Default
	}
	mi, err := os.Open(mountinfo)
	if err != nil {
		return "", Unavailablef("no tracefs: %v", err)
	}
	tracefs, err := tracefsIn(mi)
	mi.Close()
	if err != nil {
		return "", Unavailablef("no tracefs: reading %s: %v", mountinfo, err)
	}
	if tracefs == "" {
		if err := unix.Mount("nodev", mountAt, "tracefs", 0, ""); err != nil {
			return "", Unavailablef("no tracefs mounted, and mounting one on %s failed: %v", mountAt, err)
		}
		tracefs = mountAt
	}
	return tracefs, nil
}

// tracefsIn returns the mount point of a tracefs (or of a debugfs with a
// tracing directory) in a /proc/self/mountinfo listing, "" when none.
func tracefsIn(mountinfo io.Reader) (string, error) {
	sc := bufio.NewScanner(mountinfo)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	debugfs := ""
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superopts
		f := strings.Fields(sc.Text())
		sep := -1
		for i, s := range f {
			if s == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+1 >= len(f) {
			continue
		}
		mp := unescapeMount(f[4])
		switch f[sep+1] {
		case "tracefs":
			return mp, nil
		case "debugfs":
			if debugfs == "" {
				debugfs = filepath.Join(mp, "tracing")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if debugfs != "" {
		if st, err := os.Stat(filepath.Join(debugfs, "events")); err == nil && st.IsDir() {
			return debugfs, nil
		}
	}
	return "", nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Default is where tracefs is mounted when none is.
const Default = "/sys/kernel/tracing"

// Field is where one field of a trace event's record lies.
type Field struct {
	Offset, Size int
}

// Format is a trace event's record layout, from its tracefs format file.
type Format map[string]Field

// parseFormat reads an events/GROUP/NAME/format file's fields.
func parseFormat(r io.Reader) (Format, error) {
	f := Format{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "field:") {
			continue
		}
		// field:TYPE NAME;	offset:N;	size:N;	signed:N;
		var decl string
		off, size := -1, -1
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimSpace(part)
			k, v, ok := strings.Cut(part, ":")
			if !ok {
				continue
			}
			switch k {
			case "field":
				decl = v
			case "offset":
				off, _ = strconv.Atoi(v)
			case "size":
				size, _ = strconv.Atoi(v)
			}
		}
		name := decl
		if i := strings.LastIndexAny(decl, " *"); i >= 0 {
			name = decl[i+1:]
		}
		if j := strings.IndexByte(name, '['); j >= 0 {
			name = name[:j]
		}
		if name == "" || off < 0 || size <= 0 {
			return nil, fmt.Errorf("bad field line %q", line)
		}
		f[name] = Field{Offset: off, Size: size}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(f) == 0 {
		return nil, errors.New("no fields")
	}
	return f, nil
}

// ReadFormat reads the layout of tracefs event group/name.
func ReadFormat(tracefs, group, name string) (Format, error) {
	fh, err := os.Open(filepath.Join(tracefs, "events", group, name, "format"))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := parseFormat(fh)
	if err != nil {
		return nil, fmt.Errorf("%s/%s format: %w", group, name, err)
	}
	return f, nil
}

// Want returns field name of event's layout f, checking that it is one of
// sizes bytes and aligned for a direct load; the errors are *Unavailable.
func (f Format) Want(event, name string, sizes ...int) (Field, error) {
	fl, ok := f[name]
	if !ok {
		return Field{}, Unavailablef("tracepoint %s has no field %s on this kernel", event, name)
	}
	for _, s := range sizes {
		if fl.Size == s && fl.Offset%s == 0 {
			return fl, nil
		}
	}
	return Field{}, Unavailablef("tracepoint %s field %s is %d bytes at offset %d, not a size gofio reads", event, name, fl.Size, fl.Offset)
}
