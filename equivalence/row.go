package equivalence

import "time"

// Row is one job of the equivalence suite, run by fio and by gofio.
type Row struct {
	// Name names the subtest: "area/what", unique in the table.
	Name string
	// Ref says where the row comes from: "fio examples/fsx.fio".
	Ref string
	// Args are fio command-line options. Without JobFile the suite runs
	// "--name=j --directory=<scratch> --output-format=json" + Args; with
	// it, "--output-format=json" + Args + the job file.
	Args []string
	// JobFile is the text of a job file, written to the scratch directory
	// (its working directory; $EQDIR names it in the job file too).
	JobFile string
	// Before lists files the scratch directory holds before the program
	// runs, by path relative to it (folders made as needed), each that
	// many zero bytes: what a job reads at parse time (opendir=).
	Before map[string]int
	// Exact lists job-relative dotted paths compared exactly, on top of
	// every direction's total_ios, io_bytes, short_ios and drop_ios.
	Exact []string
	// Tol lists statistical fields compared within a tolerance.
	Tol []Tol
	// Documented lists job-relative paths where gofio deliberately
	// differs from fio: each has a row in the differences table
	// (docs/differences.md or jobfile/DIFFERENCES.md),
	// is left out of the comparison, and the row's Check asserts what
	// the table says instead.
	Documented []string
	// IgnoreKeys lists key-path prefixes ("/jobs[]/job options/foo") left
	// out of the key-structure comparison, each for a documented reason.
	IgnoreKeys []string
	// Exit is the exit status both programs end the row with: fio's is
	// the number of jobs that failed (0: none may fail).
	Exit int
	// NoKeys and NoFiles turn the key-structure and file comparisons off;
	// NoCounts turns the per-direction counts off (time-based rows).
	NoKeys, NoFiles, NoCounts bool
	// Runs is how often each program runs the row (default 1). Every
	// gofio run is compared with the fio run of the same index.
	Runs int
	// SameDir runs both programs, one after the other, in one scratch
	// directory, so that file names, which seed fio's random_distribution
	// generators, are the same.
	SameDir bool
	// Serial runs the row alone: its numbers depend on having the CPUs
	// to itself (rates, elapsed time). Other test packages still share
	// the CPUs on CI, so a Serial row that differs is run again, both
	// programs, up to serialAttempts times, and fails only when every
	// attempt differs.
	Serial bool
	// FioHangs, when set, says why fio 3.33 may hang instead of ending on
	// this row (log_compression's workers at exit): fio's run of it then
	// gets fioHangTimeout, not RunTimeout, and a run killed at that limit
	// is started again, up to fioHangAttempts times, before the row skips
	// saying so (nothing to compare gofio with). gofio's runs keep
	// RunTimeout and fail on it.
	FioHangs string
	// Check, when set, tests the outcomes of all runs of both programs on
	// top of the field comparison and returns one line per difference.
	Check func(fio, gofio []*Outcome) []string
	// Root, when set, says what of root's the row needs (a privilege
	// both programs use): as another user the row skips saying so.
	Root string
	// Ext4, when above 0, puts the row's scratch directories on a fresh
	// ext4 filesystem of that many MiB (internal/mounttest: root, loop
	// devices), for what tmpfs does not take (RWF_DONTCACHE); the row
	// skips, saying why, where one cannot be made.
	Ext4 int64
	// Since names the fio release that added the row's option ("3.42"):
	// the row runs only against that fio (GOFIO_EQ_FIO), not fio 3.33.
	Since string
	// Fio342, when set, writes down how fio 3.42's results differ from
	// fio 3.33's on this row (gofio keeps fio 3.33's, even with
	// --fio-release=3.42). Against fio 3.42 the row runs, logs the
	// differences and skips; once fio 3.42 agrees it fails, asking for
	// Fio342 to go.
	Fio342 string
	// release is the newer fio the row runs against ("" for fio 3.33):
	// gofio then runs with --fio-release=release.
	release string
	// Pending, when set, says why the row is known to differ and who is
	// fixing it. The row runs and logs its differences, then skips; once
	// it matches it fails so that Pending is dropped.
	Pending string
}

// skipAgainst returns why the row does not run against fio release
// ("" for fio 3.33), or "" when it does.
func (r Row) skipAgainst(release string) string {
	if r.Since != "" && release == "" {
		return "the row's option came with fio " + r.Since + ": it runs against that fio (GOFIO_EQ_FIO), not fio 3.33"
	}
	if release != "" && fio342Hangs[r.Name] {
		return "fio " + release + " differs from fio 3.33 on this row: " + r.Fio342
	}
	return ""
}

// runs is the number of runs of the row.
func (r Row) runs() int {
	if r.Runs < 1 {
		return 1
	}
	return r.Runs
}

// fioHangTimeout bounds fio's run of a FioHangs row: such rows end in
// about a second when fio does not hang.
const fioHangTimeout = 10 * time.Second

// fioHangAttempts is how often fio runs a FioHangs row before the row
// skips because fio hung every time.
const fioHangAttempts = 3

// timeout is the time program (fio or gofio) gets for one run of the row.
func (r Row) timeout(program string) time.Duration {
	if program == "fio" && r.FioHangs != "" {
		return fioHangTimeout
	}
	return RunTimeout
}

// serialAttempts is how often a Serial row runs before a difference fails
// it: a defect differs every time, a descheduled run once.
const serialAttempts = 3

// attempts is the number of attempts the row gets.
func (r Row) attempts() int {
	if r.Serial {
		return serialAttempts
	}
	return 1
}
