// Package cmd is the gofio command: argv split into gofio's flags, fio's
// job options and job files (argv.go), the flags parsed into one Config
// (cli.go, fioflags.go, config.go), the process state a whole command runs
// in (state.go, so a test runs it in-process), and one file per command:
// a run (run.go), a comparison (compare.go), gofio diff and drift
// (diff.go), merge (merge.go), the subcommand table with completion and
// man (subcmd.go, completion.go), version (version.go) and fleet runs
// (fleet.go). It wires the packages together and prints; it holds no run
// logic. Only the root main package exits the process.
package cmd
