package zbd_test

// The engines register their names, capabilities and options with jobfile
// (engines/all); this test binary links them, so that the package's tests
// parse jobs as gofio does.
import _ "github.com/gofio/gofio/engines/all"
