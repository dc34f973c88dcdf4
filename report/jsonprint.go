package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonValue is a node of fio's JSON tree (json.c): objects keep insertion
// order, floats print with %f, strings escape only '\' and '"'.
type jsonValue interface{}

type jsonPair struct {
	key string
	val jsonValue
}

// jsonObject is an ordered JSON object.
type jsonObject struct{ pairs []jsonPair }

type jsonArray []jsonValue

// jsonRaw is a value already encoded by encoding/json; it is re-indented
// to its nesting level.
type jsonRaw []byte

// jsonFloat prints as C's "%f".
type jsonFloat float64

// jsonCompact is embedded JSON printed as it is, on one line (a job's
// exact state, which nobody reads by eye).
type jsonCompact []byte

func (o *jsonObject) add(k string, v jsonValue) { o.pairs = append(o.pairs, jsonPair{k, v}) }

// addString adds a string pair; an empty string drops the pair, as fio's
// json_object_add_value_string does.
func (o *jsonObject) addString(k, v string) {
	if v != "" {
		o.add(k, v)
	}
}

func (o *jsonObject) addInt(k string, v uint64)    { o.add(k, v) }
func (o *jsonObject) addSInt(k string, v int64)    { o.add(k, v) }
func (o *jsonObject) addFloat(k string, v float64) { o.add(k, jsonFloat(v)) }
func (o *jsonObject) addBool(k string, v bool)     { o.add(k, v) }

// mustMarshal returns v as encoding/json writes it. The report's own types
// always marshal, so an error is a bug: it panics, naming v by what.
func mustMarshal(what string, v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("report: %s json: %v", what, err))
	}
	return raw
}

func writeIndent(w *bufio.Writer, level int) {
	for i := 0; i < level; i++ {
		w.WriteString("  ")
	}
}

// printJSON writes v at nesting level level, as fio's json_print_*.
func printJSON(w *bufio.Writer, v jsonValue, level int) {
	switch t := v.(type) {
	case *jsonObject:
		w.WriteString("{\n")
		for i, p := range t.pairs {
			if i > 0 {
				w.WriteString(",\n")
			}
			writeIndent(w, level+1)
			w.WriteString(`"` + jsonEscape(p.key) + `" : `)
			printJSON(w, p.val, level+1)
		}
		w.WriteString("\n")
		writeIndent(w, level)
		w.WriteString("}")
	case jsonArray:
		w.WriteString("[\n")
		for i, e := range t {
			if i > 0 {
				w.WriteString(",\n")
			}
			writeIndent(w, level+1)
			printJSON(w, e, level+1)
		}
		w.WriteString("\n")
		writeIndent(w, level)
		w.WriteString("]")
	case string:
		w.WriteString(`"` + jsonEscape(t) + `"`)
	case uint64:
		w.WriteString(strconv.FormatUint(t, 10))
	case int64:
		w.WriteString(strconv.FormatInt(t, 10))
	case jsonFloat:
		w.WriteString(strconv.FormatFloat(float64(t), 'f', 6, 64))
	case bool:
		w.WriteString(strconv.FormatBool(t))
	case jsonCompact:
		w.Write(t)
	case jsonRaw:
		var buf bytes.Buffer
		pre := strings.Repeat("  ", level)
		if err := json.Indent(&buf, t, pre, "  "); err != nil {
			panic(fmt.Sprintf("report: embedded JSON: %v", err))
		}
		w.Write(buf.Bytes())
	default:
		panic(fmt.Sprintf("report: unexpected JSON value %T", v))
	}
}

// jsonEscape escapes '\' and '"' as fio does. Control characters, which
// fio would copy raw and so break the document, are written as \u00XX so
// the output always parses.
func jsonEscape(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' || c < 0x20 {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '"':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, c)...)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
