package jobfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLine is fio's OPT_LEN_MAX: fio splits longer lines, gofio rejects them.
const maxLine = 8192

// maxIncludeSize bounds an included file.
const maxIncludeSize = 16 << 20

// maxIncludeDepth bounds nested includes.
const maxIncludeDepth = 16

// rawEntry is one option line of a job file after the pre-pass: comments
// cut, ${VAR} and keywords expanded, split at the first '='.
type rawEntry struct {
	key, value string
	has        bool // the line had '='
	file       string
	line       int
}

// text returns the entry as fio prints it in errors: key=value.
func (e rawEntry) text() string {
	if !e.has {
		return e.key
	}
	return e.key + "=" + e.value
}

// rawSection is one [section] of a job file with its option lines in order.
type rawSection struct {
	name    string
	file    string
	line    int
	entries []rawEntry
}

// global reports whether the section is a [global] one: fio counts any name
// starting with "global".
func (s *rawSection) global() bool { return strings.HasPrefix(s.name, "global") }

// prepass reads one job file line by line the way fio's __parse_jobs_ini
// does, and returns its sections. It keeps file:line for every entry,
// splices includes, and expands ${VAR} and $ncpus/$pagesize/$mb_memory.
type prepass struct {
	in       *Input
	host     Host
	sections []*rawSection
	stack    []string // include chain, for loop detection
	err      error    // the first fatal warning (--warnings-fatal)
}

// readJobFile reads a job file ("-" is stdin).
func (p *prepass) readJobFile(name string) ([]byte, error) {
	if name == "-" {
		if p.in.Stdin == nil {
			return nil, &Error{File: "-", Msg: "no standard input to read the job file from"}
		}
		b, err := io.ReadAll(p.in.Stdin)
		if err != nil {
			return nil, &Error{File: "-", Msg: fmt.Sprintf("cannot read job file from standard input: %v", err)}
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		msg := "cannot open job file"
		if errors.Is(err, os.ErrNotExist) {
			msg = "job file does not exist"
		} else if st, serr := os.Stat(name); serr == nil && st.IsDir() {
			msg = "job file is a directory"
		} else if errors.Is(err, os.ErrPermission) {
			msg = "no permission to read job file"
		}
		return nil, &Error{File: name, Msg: msg}
	}
	return b, nil
}

// parse runs the pre-pass over data, the contents of file.
func (p *prepass) parse(file string, data []byte, inInclude bool) error {
	if len(p.stack) > maxIncludeDepth {
		return &Error{File: file, Msg: fmt.Sprintf("includes nested deeper than %d", maxIncludeDepth)}
	}
	p.stack = append(p.stack, file)
	defer func() { p.stack = p.stack[:len(p.stack)-1] }()
	if bytes.IndexByte(data, 0) >= 0 {
		return &Error{File: file, Msg: "not a job file: it contains NUL bytes"}
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		n := i + 1
		if len(line) >= maxLine {
			return &Error{File: file, Line: n, Msg: fmt.Sprintf("line longer than %d bytes", maxLine-1)}
		}
		if !utf8.ValidString(line) {
			return &Error{File: file, Line: n, Msg: "line is not valid UTF-8"}
		}
		line = strings.TrimLeft(line, " \t\r\v\f")
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		// fio's strip_blank_end cuts at the first ';' and the first '#'.
		if k := strings.IndexAny(line, ";#"); k >= 0 {
			line = line[:k]
		}
		line = strings.TrimRightFunc(line, func(r rune) bool { return r <= ' ' || r == 0x7f })
		if line == "" {
			continue
		}
		if line[0] == '[' {
			if inInclude {
				return &Error{File: file, Line: n, Msg: "no new sections in included files"}
			}
			if !strings.HasSuffix(line, "]") || len(line) < 2 {
				return &Error{File: file, Line: n, Msg: fmt.Sprintf("section header %q lacks the closing ]", line)}
			}
			name := line[1 : len(line)-1]
			if name == "" {
				return &Error{File: file, Line: n, Msg: "empty section name"}
			}
			p.sections = append(p.sections, &rawSection{name: name, file: file, line: n})
			continue
		}
		if rest, ok := strings.CutPrefix(line, "include"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			if err := p.include(file, n, strings.TrimSpace(rest)); err != nil {
				return err
			}
			continue
		}
		e, err := p.entry(file, n, line)
		if err != nil {
			return err
		}
		if len(p.sections) == 0 {
			return &Error{File: file, Line: n, Option: e.text(), Msg: "option outside of [] job section"}
		}
		s := p.sections[len(p.sections)-1]
		s.entries = append(s.entries, e)
	}
	return nil
}

// include splices the included file into the current section.
func (p *prepass) include(file string, line int, name string) error {
	if name == "" {
		return &Error{File: file, Line: line, Msg: "include without a file name"}
	}
	path := name
	if _, err := os.Stat(path); err != nil && !filepath.IsAbs(name) && file != "-" {
		path = filepath.Join(filepath.Dir(file), name)
	}
	for _, f := range p.stack {
		if f == path {
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("include loop: %s includes itself", path)}
		}
	}
	st, err := os.Stat(path)
	if err == nil && !st.Mode().IsRegular() {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("include file %s is not a regular file", name)}
	}
	if err == nil && st.Size() > maxIncludeSize {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("include file %s is larger than %d bytes", name, maxIncludeSize)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("cannot read include file %s: %v", name, errors.Unwrap(err))}
	}
	return p.parse(path, data, true)
}

// entry expands and splits one option line.
func (p *prepass) entry(file string, line int, text string) (rawEntry, error) {
	text = p.expandVars(file, line, text)
	if p.err != nil {
		return rawEntry{}, p.err
	}
	key, value, has := strings.Cut(text, "=")
	key = strings.TrimSpace(key)
	if has {
		value = strings.TrimSpace(p.keywords(value))
	}
	if key == "" {
		return rawEntry{}, &Error{File: file, Line: line, Option: text, Msg: "option line without a name"}
	}
	return rawEntry{key: key, value: value, has: has, file: file, line: line}, nil
}

// expandVars replaces ${NAME} with the environment value; unset becomes
// empty, with a warning.
func (p *prepass) expandVars(file string, line int, s string) string {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return s
		}
		name := s[i+2 : i+j]
		val, ok := "", false
		if p.in.Getenv != nil {
			val, ok = p.in.Getenv(name)
		}
		if !ok && p.in.WarningsFatal && p.err == nil {
			p.err = &Error{File: file, Line: line, Option: "${" + name + "}", Msg: "is not set (--warnings-fatal)"}
		}
		if !ok && p.in.Warn != nil {
			fmt.Fprintf(p.in.Warn, "gofio: %s:%d: warning: ${%s} is not set, using an empty value\n", file, line, name)
		}
		s = s[:i] + val + s[i+j+1:]
	}
}

// keywords replaces $ncpus, $pagesize and $mb_memory and, if one was
// replaced, evaluates integer arithmetic in the value as fio does through bc.
func (p *prepass) keywords(v string) string {
	r := strings.NewReplacer("$ncpus", strconv.Itoa(p.host.NCPUs), "$pagesize", strconv.Itoa(p.host.PageSize),
		"$mb_memory", strconv.Itoa(p.host.MBMemory))
	out := r.Replace(v)
	if out == v {
		return v
	}
	if n, ok := evalArith(out); ok {
		return strconv.FormatInt(n, 10)
	}
	return out
}

// evalArith evaluates + - * / and parentheses over integers, like bc with
// scale=0. It reports false when s is not such an expression.
func evalArith(s string) (int64, bool) {
	a := arith{s: strings.ReplaceAll(s, " ", "")}
	v, ok := a.expr(0)
	return v, ok && a.pos == len(a.s)
}

type arith struct {
	s   string
	pos int
}

func (a *arith) expr(depth int) (int64, bool) { return a.level(depth, "+-", a.term) }

func (a *arith) term(depth int) (int64, bool) { return a.level(depth, "*/", a.factor) }

// level parses one precedence level: operands joined, left to right, by
// the operators in ops.
func (a *arith) level(depth int, ops string, operand func(int) (int64, bool)) (int64, bool) {
	v, ok := operand(depth)
	for ok && a.pos < len(a.s) && strings.IndexByte(ops, a.s[a.pos]) >= 0 {
		op := a.s[a.pos]
		a.pos++
		var r int64
		if r, ok = operand(depth); ok {
			v, ok = applyOp(op, v, r)
		}
	}
	return v, ok
}

// applyOp returns v op r; false for a division by zero.
func applyOp(op byte, v, r int64) (int64, bool) {
	switch op {
	case '+':
		return v + r, true
	case '-':
		return v - r, true
	case '*':
		return v * r, true
	}
	if r == 0 {
		return 0, false
	}
	return v / r, true
}

func (a *arith) factor(depth int) (int64, bool) {
	if depth > 32 || a.pos >= len(a.s) {
		return 0, false
	}
	if a.s[a.pos] == '(' {
		a.pos++
		v, ok := a.expr(depth + 1)
		if !ok || a.pos >= len(a.s) || a.s[a.pos] != ')' {
			return 0, false
		}
		a.pos++
		return v, true
	}
	start := a.pos
	for a.pos < len(a.s) && a.s[a.pos] >= '0' && a.s[a.pos] <= '9' {
		a.pos++
	}
	v, err := strconv.ParseInt(a.s[start:a.pos], 10, 64)
	return v, err == nil
}
