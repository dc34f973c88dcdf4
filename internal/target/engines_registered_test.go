package target_test

// The engines register their names, capabilities and options with jobfile
// (engines/all); this test binary links them for every test of the
// package that asks a job for its engine's facts, as gofio does.
import _ "github.com/gofio/gofio/engines/all"
