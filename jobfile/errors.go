package jobfile

import (
	"fmt"
	"strings"
)

// Error is a job-file or command-line error with its location. Every error
// the parser returns for bad input is an *Error; the CLI prints it and exits 1.
type Error struct {
	File      string // job file, "" for the command line, "--set" for a --set override
	Line      int    // 1-based line, 0 when the error is about the whole file
	Option    string // the offending key=value text (or option name)
	Msg       string // what is wrong or what is allowed
	BadOption bool   // the option name itself is unknown
}

// Error formats the error as FILE:LINE: bad option <key=value>: hint, or
// FILE:LINE: option: what is allowed.
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File == "":
		b.WriteString("command line")
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d", e.File, e.Line)
	default:
		b.WriteString(e.File)
	}
	b.WriteString(": ")
	if e.BadOption {
		fmt.Fprintf(&b, "bad option <%s>", e.Option)
		if e.Msg != "" {
			b.WriteString(": ")
			b.WriteString(e.Msg)
		}
		return b.String()
	}
	if e.Option != "" {
		b.WriteString(e.Option)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// levenshtein returns the edit distance between a and b, as fio's
// string_distance computes it.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// closestOption returns the option name nearest to typed by edit distance,
// and whether it is close enough to suggest (fio's string_distance_ok:
// distance <= (len(typed)+1)/2).
func closestOption(typed string) (string, bool) {
	if i := strings.IndexByte(typed, '='); i >= 0 {
		typed = typed[:i]
	}
	typed = strings.ToLower(typed)
	best, bestD := "", -1
	for _, o := range optionTable {
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			d := levenshtein(typed, n)
			if bestD < 0 || d < bestD {
				best, bestD = n, d
			}
		}
	}
	return best, bestD >= 0 && bestD <= (len(typed)+1)/2
}

// unknownOption builds the error for an option name gofio does not know.
func unknownOption(file string, line int, text, key string) *Error {
	e := &Error{File: file, Line: line, Option: text, BadOption: true}
	if fioOnlyOption(key) {
		e.Msg = fmt.Sprintf("fio option %s is not supported by gofio", key)
		return e
	}
	if name, ok := fioAliases[key]; ok {
		e.Msg = fmt.Sprintf("fio option %s (%s is its alias) is not supported by gofio", name, key)
		return e
	}
	if best, ok := closestOption(key); ok {
		e.Msg = fmt.Sprintf("did you mean %s?", best)
	}
	return e
}
