package iogen_test

// The engines register their names, capabilities and options with jobfile
// (engines/all); this test binary links them for every test of the
// package that parses a job, as gofio does.
import _ "github.com/gofio/gofio/engines/all"
