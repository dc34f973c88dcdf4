// Package docs holds gofio's user documentation: one Markdown page per
// subject, linked from the README. It has no code; its test checks that
// every relative link in the repository's Markdown files, and every
// #anchor such a link names, resolves.
package docs
