package jobfile

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/ini.v1"
)

// iniOptions configures gopkg.in/ini.v1 for fio's job-file rules. The line
// pre-pass has already applied the rules ini.v1 cannot express (file:line for
// every key, fio's comment cutting at the first ';' or '#', include, ${VAR},
// keywords, [global] by position), so ini.v1 sees one line per section or
// option and keeps their order, duplicate sections and valueless keys.
var iniOptions = ini.LoadOptions{
	AllowNonUniqueSections:  true, // duplicate [job] names are separate jobs
	AllowShadows:            true, // a key may repeat in a section
	AllowBooleanKeys:        true, // valueless flags such as time_based
	IgnoreInlineComment:     true, // comments were cut by the pre-pass
	IgnoreContinuation:      true, // fio has no line continuation
	PreserveSurroundedQuote: true, // fio keeps quotes (buffer_pattern="...")
	KeyValueDelimiters:      "=",  // fio splits at the first '='
	SkipUnrecognizableLines: false,
}

// structure round-trips the pre-pass sections through ini.v1 and returns
// them as ini.v1 parsed them. Section and key names carry the pre-pass index
// (s<N>, e<N>.key) so that every entry keeps its file and line, and values
// are written inside """ quotes so that ini.v1 returns them byte for byte.
func structure(secs []*rawSection) ([]*rawSection, error) {
	var b strings.Builder
	var flat []rawEntry
	for i, s := range secs {
		fmt.Fprintf(&b, "[s%d]\n", i)
		for _, e := range s.entries {
			if e.has {
				fmt.Fprintf(&b, "e%d.%s = \"\"\"%s\"\"\"\n", len(flat), e.key, e.value)
			} else {
				fmt.Fprintf(&b, "e%d.%s\n", len(flat), e.key)
			}
			flat = append(flat, e)
		}
	}
	f, err := ini.LoadSources(iniOptions, []byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("ini structure: %w", err)
	}
	out := make([]*rawSection, 0, len(secs))
	for _, sec := range f.Sections() {
		if sec.Name() == ini.DefaultSection {
			continue
		}
		idx, err := strconv.Atoi(strings.TrimPrefix(sec.Name(), "s"))
		if err != nil || idx < 0 || idx >= len(secs) {
			return nil, fmt.Errorf("ini structure: unexpected section %q", sec.Name())
		}
		src := secs[idx]
		rs := &rawSection{name: src.name, file: src.file, line: src.line}
		for _, k := range sec.Keys() {
			seq, key, _ := strings.Cut(k.Name(), ".")
			n, err := strconv.Atoi(strings.TrimPrefix(seq, "e"))
			if err != nil || n < 0 || n >= len(flat) {
				return nil, fmt.Errorf("ini structure: unexpected key %q", k.Name())
			}
			e := flat[n]
			e.key = key
			if e.has {
				e.value = k.Value()
			}
			rs.entries = append(rs.entries, e)
		}
		out = append(out, rs)
	}
	return out, nil
}
