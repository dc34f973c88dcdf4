// Package jobfile turns fio job files and fio command lines into validated
// Jobs, as fio 3.33 reads them: ini sections with [global] inheritance,
// include directives, ${VAR} and $ncpus-style expansion, option names,
// aliases, unique prefixes and fio's value syntax (sizes, times, ranges,
// R,W,T lists, bssplit), numjobs clones and stonewall groups. Parse is the
// entry point; ShowCmd, CmdHelp and EngHelp print what fio's --showcmd,
// --cmdhelp and --enghelp print.
//
// Its rules:
//   - One table holds every job option (options.go, fiooptions.go):
//     parsing, defaults, validation, help and the option list OPTIONS.md
//     are all driven from it. A new option is one entry there, a Job field, and a
//     test. The engines other than io_uring state their own options in
//     their packages and register them (RegisterEngine, from
//     engines/all); the engine table (engines.go) is what registered,
//     and nothing here branches on an engine's name.
//   - Bad input is an *Error that names file, line, option and what was
//     allowed; nothing is half-parsed.
//   - Facts derived from a job's options live here, as methods on Job
//     (derived.go: BSMin, BSMax, MinBS, MaxBS, Policy; DefaultPercentiles).
//     Other packages call them and keep no copies.
//   - jobfile reads files but runs nothing and opens no device: what can
//     only be checked against a target belongs to package run.
//
// Deliberate differences from fio's parser are listed in DIFFERENCES.md.
package jobfile
