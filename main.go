// Command gofio is a fio-compatible storage load generator built on io_uring.
// It reads fio job files and command lines and runs them; package cmd holds
// the command itself.
package main

import (
	"os"

	"github.com/gofio/gofio/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args, os.Exit))
}
