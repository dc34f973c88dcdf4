package cmd

import (
	"slices"
	"testing"
)

// TestFormatOrder: a plain run writes fio's order (terse, json, normal)
// and json+ over json; a comparison writes its table once for normal and
// compare, then Markdown, then one JSON document.
func TestFormatOrder(t *testing.T) {
	cfg := &Config{OutputFormats: []string{"normal", "json", "json+", "terse", "compare", "markdown"}}
	for _, tt := range []struct {
		order []string
		want  []string
	}{
		{plainOrder, []string{"terse", "json+", "normal"}},
		{comparisonOrder, []string{"normal", "markdown", "json+"}},
	} {
		var got []string
		if err := eachFormat(cfg, tt.order, func(f outputFormat) error { got = append(got, f.name); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("order %v wrote %v, want %v", tt.order, got, tt.want)
		}
	}
	for _, f := range outputFormats {
		if !slices.Contains(plainOrder, f.name) && !slices.Contains(comparisonOrder, f.name) {
			t.Errorf("format %s is written in no order", f.name)
		}
		if (f.plain != nil) != slices.Contains(plainOrder, f.name) || (f.comparison != nil) != slices.Contains(comparisonOrder, f.name) {
			t.Errorf("format %s: its writers and the orders disagree", f.name)
		}
	}
}
