package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

const (
	// MaxFileLines is the most lines a non-test Go file may have.
	MaxFileLines = 700
	// MaxFuncLines is the most lines a function may span, from its func
	// keyword to its closing brace.
	MaxFuncLines = 100
	// MaxRunLines is the most lines the non-test Go files of package run
	// may have together: run is the event loop and job orchestration
	// only, and what is not goes to a package of its own.
	MaxRunLines = 6500
)

// goFiles returns the repository's Go files, relative to its root,
// skipping testdata and hidden directories.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != repoRoot && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found %d Go files under %s, want the whole repository", len(out), repoRoot)
	}
	return out
}

// TestSizeLimits fails on a non-test Go file over MaxFileLines lines and
// on a function over MaxFuncLines lines.
func TestSizeLimits(t *testing.T) {
	fset := token.NewFileSet()
	for _, rel := range goFiles(t) {
		f, err := parser.ParseFile(fset, filepath.Join(repoRoot, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(rel, "_test.go")
		if n := fset.File(f.Pos()).LineCount(); !test && n > MaxFileLines {
			t.Errorf("%s: %d lines, more than %d: cut it by concern", rel, n, MaxFileLines)
		}
		for _, d := range f.Decls {
			if test {
				break // tests may hold long tables
			}
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			from, to := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := to - from + 1; n > MaxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, more than %d", rel, from, funcName(fn), n, MaxFuncLines)
			}
		}
	}
}

// TestRunSize fails when package run's non-test Go files have more than
// MaxRunLines lines together (as wc -l counts them).
func TestRunSize(t *testing.T) {
	total, files := 0, 0
	for _, rel := range goFiles(t) {
		if filepath.Dir(rel) != "run" || strings.HasSuffix(rel, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(b), "\n")
		files++
	}
	if files == 0 {
		t.Fatal("no non-test Go file in run/")
	}
	if total > MaxRunLines {
		t.Errorf("run/: %d non-test lines in %d files, more than %d: move what is not the event loop or job orchestration to a package of its own (docs/architecture.md)", total, files, MaxRunLines)
	}
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// trackerRE matches an issue tracker reference: the word issue (or
// issues) and a number, with a space, a hash or neither between them.
var trackerRE = regexp.MustCompile(`(?i)\bissues? ?#?[0-9]+`)

// TestNoTrackerNumbers fails on an issue tracker number in Go source: the
// code says what it does and why; the tracker's history stays in commit
// messages.
func TestNoTrackerNumbers(t *testing.T) {
	for _, rel := range goFiles(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := trackerRE.FindString(line); m != "" {
				t.Errorf("%s:%d: tracker number %q", rel, i+1, strings.TrimSpace(m))
			}
		}
	}
}

// TestTrackerRE checks what the tracker pattern takes and leaves.
func TestTrackerRE(t *testing.T) {
	for _, s := range []string{"(issue" + " 26)", "Issues" + " 26 and 28", "see issue" + " #31", "var issue" + "20 = x"} {
		if !trackerRE.MatchString(s) {
			t.Errorf("%q: not matched", s)
		}
	}
	for _, s := range []string{"an issue with 4 jobs", "examples #1 to #6", `"#%d"`, "issue.go:73"} {
		if trackerRE.MatchString(s) {
			t.Errorf("%q: matched", s)
		}
	}
}
