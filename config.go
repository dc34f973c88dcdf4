package main

// Config holds gofio's own command-line flags (not job options), after
// parsing. The front end (cli.go) fills it; execute.go acts on it.
type Config struct {
	OutputFormats []string // normal, json, json+, terse, compare
	Output        string   // --output=FILE; "" means stdout
	ParseOnly     bool
	ShowCmd       bool
	Sections      []string
	Eta           string   // auto, always, never
	Sets          []string // --set KEY=VALUE, in order

	// Compare and sweep.
	Compare      bool
	Repeat       int
	Sweeps       []string // --sweep KEY=LIST, in order
	CompareCSV   string
	JSONDir      string
	Plot         string
	FailIfSlower float64 // percent; <0 when unset
}
