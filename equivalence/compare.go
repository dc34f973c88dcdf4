package equivalence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// dirs are the directions whose counts every row compares.
var dirs = []string{"read", "write", "trim"}

// countFields are the per-direction fields every row compares exactly.
var countFields = []string{"total_ios", "io_bytes", "short_ios", "drop_ios"}

// Doc is one decoded --output-format=json document.
type Doc map[string]any

// ParseDoc decodes a JSON document from a program's standard output,
// skipping anything printed before its first '{' (fio prints some
// warnings on stdout).
func ParseDoc(out []byte) (Doc, error) {
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return nil, fmt.Errorf("no JSON document in output: %q", truncate(out))
	}
	dec := json.NewDecoder(bytes.NewReader(out[i:]))
	dec.UseNumber()
	var d Doc
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	return d, nil
}

func truncate(b []byte) []byte {
	if len(b) > 400 {
		return b[:400]
	}
	return b
}

// Jobs returns the job objects of the document.
func (d Doc) Jobs() []map[string]any {
	arr, _ := d["jobs"].([]any)
	jobs := make([]map[string]any, 0, len(arr))
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			jobs = append(jobs, m)
		}
	}
	return jobs
}

// Lookup returns the value at a dotted path inside obj ("read.total_ios",
// "sync.lat_ns.N", "iodepth_level"), and whether it is there.
func Lookup(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// Number returns the value at path as a float64.
func Number(obj map[string]any, path string) (float64, bool) {
	v, ok := Lookup(obj, path)
	if !ok {
		return 0, false
	}
	return toFloat(v)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

// normalize turns json.Numbers into float64 so that 100 and 100.000000
// compare equal.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := toFloat(t)
		return f
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = normalize(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = normalize(e)
		}
		return a
	}
	return v
}

// Tol is a statistical field compared within a tolerance: gofio's value g
// passes against fio's f when |g - f| <= Abs + Rel*|f|.
type Tol struct {
	Path string
	Rel  float64
	Abs  float64
}

// Within reports whether g is within the tolerance of f.
func (t Tol) Within(f, g float64) bool {
	return math.Abs(g-f) <= t.Abs+t.Rel*math.Abs(f)
}

func (t Tol) String() string {
	return fmt.Sprintf("%s within %g%% + %g", t.Path, t.Rel*100, t.Abs)
}

// CompareJob compares one job object of fio's document with gofio's: the
// per-direction counts (with counts), the exact paths and the tolerances,
// leaving out the paths in skip (documented differences). It returns one
// line per difference.
func CompareJob(fio, gofio map[string]any, exact []string, tols []Tol, counts bool, skip ...string) []string {
	var diffs []string
	skipped := map[string]bool{}
	for _, p := range skip {
		skipped[p] = true
	}
	for _, dir := range dirs {
		for _, f := range countFields {
			if counts {
				exact = append(exact, dir+"."+f)
			}
		}
	}
	for _, p := range exact {
		if skipped[p] {
			continue
		}
		fv, fok := Lookup(fio, p)
		gv, gok := Lookup(gofio, p)
		switch {
		case !fok && !gok:
		case fok != gok:
			diffs = append(diffs, fmt.Sprintf("%s: fio %s, gofio %s", p, show(fv, fok), show(gv, gok)))
		case !reflect.DeepEqual(normalize(fv), normalize(gv)):
			diffs = append(diffs, fmt.Sprintf("%s: fio %s, gofio %s", p, show(fv, true), show(gv, true)))
		}
	}
	for _, t := range tols {
		f, fok := Number(fio, t.Path)
		g, gok := Number(gofio, t.Path)
		if !fok || !gok {
			diffs = append(diffs, fmt.Sprintf("%s: not a number in both (fio %v, gofio %v)", t.Path, fok, gok))
			continue
		}
		if !t.Within(f, g) {
			diffs = append(diffs, fmt.Sprintf("%s: fio %g, gofio %g (tolerance %g%% + %g)", t.Path, f, g, t.Rel*100, t.Abs))
		}
	}
	return diffs
}

func show(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	b, err := json.Marshal(normalize(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// KeySet collects the paths of all keys of a decoded document. Keys inside
// "percentile" and "bins" objects are numbers that depend on the data, so
// only the object itself counts; arrays contribute the union of their
// elements' keys. Keys starting with "gofio" are gofio's additions and are
// left out.
func KeySet(v any) map[string]bool {
	out := map[string]bool{}
	keySet(v, "", out)
	return out
}

func keySet(v any, path string, out map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if strings.HasPrefix(k, "gofio") {
				continue
			}
			p := path + "/" + k
			out[p] = true
			if k == "percentile" || k == "bins" {
				continue
			}
			keySet(e, p, out)
		}
	case Doc:
		keySet(map[string]any(t), path, out)
	case []any:
		for _, e := range t {
			keySet(e, path+"[]", out)
		}
	}
}

// CompareKeys compares the key structure of two documents, ignoring key
// paths that start with any of ignore. It returns one line per side that
// has keys the other lacks.
func CompareKeys(fio, gofio Doc, ignore []string) []string {
	f, g := KeySet(fio), KeySet(gofio)
	var diffs []string
	if only := onlyIn(f, g, ignore); len(only) > 0 {
		diffs = append(diffs, "keys only in fio: "+strings.Join(only, " "))
	}
	if only := onlyIn(g, f, ignore); len(only) > 0 {
		diffs = append(diffs, "keys only in gofio: "+strings.Join(only, " "))
	}
	return diffs
}

func onlyIn(a, b map[string]bool, ignore []string) []string {
	var d []string
next:
	for k := range a {
		if b[k] {
			continue
		}
		for _, p := range ignore {
			if strings.HasPrefix(k, p) {
				continue next
			}
		}
		d = append(d, k)
	}
	sort.Strings(d)
	return d
}

// CompareFiles compares the names and sizes of the files each program
// left in its scratch directory.
func CompareFiles(fio, gofio map[string]int64) []string {
	var diffs []string
	names := map[string]bool{}
	for n := range fio {
		names[n] = true
	}
	for n := range gofio {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		fs, fok := fio[n]
		gs, gok := gofio[n]
		switch {
		case !fok:
			diffs = append(diffs, fmt.Sprintf("file %s: only gofio wrote it (%d bytes)", n, gs))
		case !gok:
			diffs = append(diffs, fmt.Sprintf("file %s: only fio wrote it (%d bytes)", n, fs))
		case fs != gs:
			diffs = append(diffs, fmt.Sprintf("file %s: fio %d bytes, gofio %d", n, fs, gs))
		}
	}
	return diffs
}
