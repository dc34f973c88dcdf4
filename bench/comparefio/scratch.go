package main

import (
	"fmt"
	"os"
)

// Scratch is the pair of private directories the harness lays its files
// out in: one on tmpfs and one on the root filesystem.
type Scratch struct {
	ShmDir  string
	RootDir string
}

// NewScratch makes a fresh directory under each of shmParent and
// rootParent.
func NewScratch(shmParent, rootParent string) (Scratch, error) {
	var s Scratch
	var err error
	if s.ShmDir, err = os.MkdirTemp(shmParent, "gofio-compare-fio-"); err != nil {
		return s, fmt.Errorf("scratch on tmpfs: %w", err)
	}
	if s.RootDir, err = os.MkdirTemp(rootParent, "gofio-compare-fio-"); err != nil {
		os.RemoveAll(s.ShmDir)
		return s, fmt.Errorf("scratch on the root filesystem: %w", err)
	}
	return s, nil
}

// Remove deletes both directories and everything in them.
func (s Scratch) Remove() {
	if s.ShmDir != "" {
		os.RemoveAll(s.ShmDir)
	}
	if s.RootDir != "" {
		os.RemoveAll(s.RootDir)
	}
}
