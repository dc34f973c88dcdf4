// Package lint holds gofio's repository-wide code checks, as pebble's
// internal/lint does: its tests read the whole tree's Go source with
// go/parser and fail on what the project's rules forbid, so that no limit
// grows back unnoticed. It has no code of its own.
//
// The rules: no non-test Go file over MaxFileLines lines, no function or
// method of a non-test file over MaxFuncLines lines, package run's
// non-test files at most MaxRunLines lines together, and no issue
// tracker number (the word issue and a number) in Go source or its
// comments: the tracker's history belongs in commit messages.
package lint
