// Package equivalence is gofio's equivalence suite: a table of short jobs,
// each run by fio 3.33 and by gofio with --output-format=json on scratch
// files, whose results are compared field by field.
//
// # What a row checks
//
// Every row compares, for every job in the output:
//
//   - the deterministic counts of each direction (read, write, trim):
//     total_ios, io_bytes, short_ios and drop_ios, exactly;
//   - the key structure of the whole JSON document (every key path, with
//     the keys of "percentile" and "bins" objects left out because they
//     depend on the data, and gofio's own "gofio..." keys left out), so a
//     missing "global options" or an extra slat object is caught;
//   - the names and sizes of the files the job left in its directory.
//
// A row adds to that the job-relative paths in Exact (for example
// "sync.total_ios", "iodepth_level" or "elapsed"), compared exactly, and
// statistical fields in Tol, each with its own relative and absolute
// tolerance (|gofio - fio| <= Abs + Rel*|fio|). A row whose numbers depend
// on timing or on the host (an io_uring depth map, a rate) either runs
// several times (Runs) and compares every run, or states a tolerance;
// it never compares latencies exactly. Check runs a row-specific test on
// the outcomes of both programs when a JSON field is not enough (offset
// sequences from a log, a different sequence on every run). A row whose
// offsets depend on file names (fio seeds random_distribution from the
// path) sets SameDir: both programs run, one after the other, in one
// directory. A deliberate difference lists its JSON paths in Documented
// (left out of the comparison) and has a row in the differences table
// (docs/differences.md or jobfile/DIFFERENCES.md); its Check asserts what the table says.
//
// # Adding a row
//
// Append a Row to the table in rows.go (or to a slice of your own in a new
// rows_*.go file, listed in Rows). Give it a unique Name ("area/what"),
// Ref (the issue and item it comes from), and Args: fio command-line
// options without --name, --directory and --output-format, which the
// suite adds (--name=j --directory=<scratch> --output-format=json). Keep
// rows size-based and small (a few MiB; a time-based row at most a second
// or two), so that the whole table runs in .ci/run in well under three
// minutes on two cores. Use JobFile instead of Args for a job file (it is
// written to the scratch directory, which is also the working directory
// of both programs, with "directory=" left to the row). Mark a row Serial
// when its numbers depend on having the CPUs to itself (rates, elapsed
// time): it runs alone within the suite, and since other packages still
// share the CPUs on CI, a difference in it must show in each of three
// fresh attempts of both programs before the row fails. A row that is known to differ and is owned by other work sets
// Pending to the reason and a pointer (issue and item, branch): it still
// runs, logs its differences and is skipped; once it matches it fails,
// asking for Pending to be dropped.
//
// # Running it
//
//	go test ./equivalence/                         # every row
//	go test ./equivalence/ -run 'TestEquivalence/item3' -v
//
// The test builds gofio from this module into a temporary directory and
// runs fio from PATH; without fio, or when fio --version is not fio-3.33
// (the rows hold fio 3.33's numbers), it skips with a message that says
// which fio it found (.ci/run installs fio and prints its version, so in
// CI it runs). Scratch files live under /dev/shm when
// it is writable (io_uring rows use O_DIRECT, which tmpfs supports), else
// under the test's temporary directory, and are removed afterwards.
//
// # Against fio 3.42
//
// GOFIO_EQ_FIO=/path/to/fio-3.42 points the suite at fio 3.42 (.ci/run
// keeps one built from the tag under /var/cache/gofio/fio-3.42; .ci/build-fio
// builds it from a fio repository in $FIO_SRC). TestEquivalence then runs
// every row against it, gofio with --fio-release=3.42, and the rows of the
// options fio 3.34 to 3.42 added (Since) run too; the suite's other
// tests, which hold fio 3.33's results, skip. A row where fio 3.42's
// numbers differ from fio 3.33's writes the difference down in Fio342:
// it runs, logs the differences and skips, and fails once fio 3.42 agrees.
package equivalence
