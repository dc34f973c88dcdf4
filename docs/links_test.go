package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = ".."

var (
	// linkRE matches an inline Markdown link or image, [text](target) or
	// [text](target "title"); the text may span lines.
	linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpanRE matches an inline code span, which holds no link.
	codeSpanRE = regexp.MustCompile("`[^`]*`")
)

// TestMarkdownLinks checks that every relative link in the repository's
// Markdown files names a file or directory that exists and, where it names
// an #anchor in a Markdown file, a heading of that file.
func TestMarkdownLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 10 {
		t.Fatalf("found %d Markdown files under %s, want the README and the docs", len(files), repoRoot)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[path] = a
		return a
	}
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, file)
		for _, target := range markdownLinks(string(b)) {
			if isExternal(target) {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				if strings.HasPrefix(path, "/") {
					t.Errorf("%s: link %q is absolute; use a path relative to the file", rel, target)
					continue
				}
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", rel, target, path)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", rel, target, anchor, filepath.Base(dest))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found")
	}
}

// TestHeadingAnchors checks the anchors GitHub gives headings, which links
// name.
func TestHeadingAnchors(t *testing.T) {
	doc := "# gofio\n\n## The patch's table\n\n```\n# not a heading\n```\n\n" +
		"### Which hand-off list (`tw_list`)\n\n## kernel stages: IOPS with --kernel-stages on (bench/x.sh)\n\n" +
		"## Usage\n\n## Usage\n"
	got := headingAnchors(doc)
	for _, want := range []string{"gofio", "the-patchs-table", "which-hand-off-list-tw_list",
		"kernel-stages-iops-with---kernel-stages-on-benchxsh", "usage", "usage-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a line in a code block became a heading")
	}
}

// markdownFiles lists the repository's Markdown files, leaving out hidden
// directories and testdata (golden outputs, not documentation).
func markdownFiles(t *testing.T) []string {
	var files []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// isExternal reports whether a link target leaves the repository.
func isExternal(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// markdownLinks returns the targets of the inline links of a Markdown
// document, outside code blocks and code spans.
func markdownLinks(doc string) []string {
	text := codeSpanRE.ReplaceAllString(strings.Join(proseLines(doc), "\n"), "")
	var targets []string
	for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
		targets = append(targets, m[1])
	}
	return targets
}

// proseLines returns a document's lines with fenced and indented code
// blocks left out (each as a blank line).
func proseLines(doc string) []string {
	var out []string
	fenced, indented := false, false
	prevBlank := true
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fenced = !fenced
			out = append(out, "")
			prevBlank = false
			continue
		}
		blank := strings.TrimSpace(line) == ""
		code := (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")) && (prevBlank || indented)
		indented = code && !blank
		if fenced || code {
			out = append(out, "")
		} else {
			out = append(out, line)
		}
		prevBlank = blank
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a document's headings:
// the text lower-cased, punctuation dropped, blanks turned into hyphens,
// and -1, -2, ... added to repeats.
func headingAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(doc) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}
