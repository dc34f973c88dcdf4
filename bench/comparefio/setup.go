package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// liburingHeader is how the harness tells that liburing-dev is installed.
const liburingHeader = "/usr/include/liburing.h"

// EnsurePackages installs fio and liburing-dev with apt-get when fioPath
// or liburing's header is missing. It needs root for that.
func EnsurePackages(ctx context.Context, fioPath string, log io.Writer) error {
	var need []string
	if _, err := exec.LookPath(fioPath); err != nil {
		need = append(need, "fio")
	}
	if _, err := os.Stat(liburingHeader); err != nil {
		need = append(need, "liburing-dev")
	}
	if len(need) == 0 {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("missing %v and not root to apt-get install them", need)
	}
	return aptInstall(ctx, log, need...)
}

// aptInstall installs pkgs with apt-get (as root), its output to log.
func aptInstall(ctx context.Context, log io.Writer, pkgs ...string) error {
	fmt.Fprintf(log, "installing %s with apt-get\n", strings.Join(pkgs, " "))
	for _, args := range [][]string{
		{"update", "-qq"},
		append([]string{"install", "-y", "-qq", "--no-install-recommends"}, pkgs...),
	} {
		if err := runLogged(ctx, log, "", []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", args...); err != nil {
			return err
		}
	}
	return nil
}

// runLogged runs name with args in dir ("": this one) with env added to
// the environment, its stdout and stderr to log.
func runLogged(ctx context.Context, log io.Writer, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// BuildGofio builds the gofio binary from the module at root into out.
func BuildGofio(ctx context.Context, root, out string, log io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("build dir: %w", err)
	}
	return runLogged(ctx, log, root, nil, "go", "build", "-o", out, ".")
}

// FindModuleRoot walks up from dir to the directory holding go.mod.
func FindModuleRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// LayOut creates path with size bytes of pseudo-random data, fully
// allocated (no holes), so that reads hit real pages or blocks, and syncs
// it. Both tools then find the file complete and do not lay it out again.
func LayOut(path string, size int64, seed uint64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("lay out: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(buf)) {
		for i := 0; i+8 <= len(buf); i += 8 {
			v := rng.Uint64()
			for k := 0; k < 8; k++ {
				buf[i+k] = byte(v >> (8 * k))
			}
		}
		n := min(int64(len(buf)), size-off)
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return fmt.Errorf("lay out %s: %w", path, err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("lay out %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("lay out %s: %w", path, err)
	}
	return nil
}

// DirectWorks reports whether an O_DIRECT open and a 4 KiB aligned read of
// path succeed. tmpfs accepts O_DIRECT only on recent kernels (6.6 and
// later). The error says why not when it does not work.
func DirectWorks(path string) (bool, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return false, fmt.Errorf("open O_DIRECT: %w", err)
	}
	defer syscall.Close(fd)
	// An anonymous mapping is page aligned, as O_DIRECT needs.
	buf, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return false, fmt.Errorf("mmap: %w", err)
	}
	defer syscall.Munmap(buf)
	if _, err := syscall.Pread(fd, buf, 0); err != nil {
		return false, fmt.Errorf("pread O_DIRECT: %w", err)
	}
	return true, nil
}

// FilesystemType returns the statfs magic of the filesystem holding path,
// named where it is one the harness cares about.
func FilesystemType(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "unknown"
	}
	switch st.Type {
	case 0x01021994:
		return "tmpfs"
	case 0xef53:
		return "ext4"
	case 0x58465342:
		return "xfs"
	case 0x9123683e:
		return "btrfs"
	case 0x794c7630:
		return "overlayfs"
	}
	return fmt.Sprintf("0x%x", st.Type)
}
