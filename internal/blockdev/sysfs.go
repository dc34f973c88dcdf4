// Package blockdev holds the block-device safety checks and facts the run
// core needs: whether a target is mounted or used as swap (directly, through
// a partition, its whole disk or a device-mapper holder), its size and
// logical block size, and fio-style disk statistics from /sys/block.
package blockdev

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// devNum is a device number split into major and minor.
type devNum struct{ major, minor uint32 }

func (d devNum) String() string { return fmt.Sprintf("%d:%d", d.major, d.minor) }

// mkDev splits a raw dev_t.
func mkDev(raw uint64) devNum { return devNum{unix.Major(raw), unix.Minor(raw)} }

// parseDevNum parses "MAJ:MIN".
func parseDevNum(s string) (devNum, bool) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return devNum{}, false
	}
	ma, err1 := strconv.ParseUint(a, 10, 32)
	mi, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		return devNum{}, false
	}
	return devNum{uint32(ma), uint32(mi)}, true
}

// sysfs reads block-device topology from a sysfs tree (root "/sys" in
// production, a fake tree in tests).
type sysfs struct{ root string }

// dir returns the canonical sysfs directory of a block device, e.g.
// /sys/devices/virtual/block/loop0/loop0p1.
func (s sysfs) dir(d devNum) (string, bool) {
	p, err := filepath.EvalSymlinks(filepath.Join(s.root, "dev", "block", d.String()))
	if err != nil {
		return "", false
	}
	return p, true
}

// devOf reads the "dev" file of a sysfs block directory.
func (s sysfs) devOf(dir string) (devNum, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "dev"))
	if err != nil {
		return devNum{}, false
	}
	return parseDevNum(string(b))
}

// isPartition reports whether a sysfs block directory is a partition.
func isPartition(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "partition"))
	return err == nil
}

// partitions lists the partition directories under a whole-disk directory.
func partitions(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && isPartition(p) {
			out = append(out, p)
		}
	}
	return out
}

// links resolves the entries of a holders/ or slaves/ directory to the
// canonical sysfs directories they point at.
func links(dir, kind string) []string {
	ents, err := os.ReadDir(filepath.Join(dir, kind))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p, err := filepath.EvalSymlinks(filepath.Join(dir, kind, e.Name()))
		if err == nil {
			out = append(out, p)
		}
	}
	return out
}

// related returns every device whose use makes writing to d unsafe, each
// with a short note of how it relates to d:
//   - d itself;
//   - when d is a partition, its whole disk;
//   - when d is a whole disk, all its partitions;
//   - the holders (device-mapper, md, ...) stacked on any of those, recursively;
//   - the slaves d itself is built on (for a dm or md device), recursively.
func (s sysfs) related(d devNum) map[devNum]string {
	out := map[devNum]string{d: ""}
	dir, ok := s.dir(d)
	if !ok {
		return out
	}
	name := filepath.Base(dir)
	add := func(p, note string) {
		if n, ok := s.devOf(p); ok {
			if _, seen := out[n]; !seen {
				out[n] = note
			}
		}
	}
	base := []string{dir}
	if isPartition(dir) {
		whole := filepath.Dir(dir)
		add(whole, "its whole disk "+filepath.Base(whole))
		base = append(base, whole)
	} else {
		for _, p := range partitions(dir) {
			add(p, "its partition "+filepath.Base(p))
			base = append(base, p)
		}
	}
	// Holders, recursively: a dm device on a partition of this disk is
	// as much in use as the partition itself.
	seen := map[string]bool{}
	walkLinks(base, "holders", seen, func(h, from string) {
		add(h, "its holder "+filepath.Base(h)+" (on "+filepath.Base(from)+")")
	})
	// Slaves, recursively: writing to a dm device writes to what it sits on.
	walkLinks([]string{dir}, "slaves", seen, func(sl, _ string) {
		add(sl, "its slave "+filepath.Base(sl)+" (under "+name+")")
	})
	return out
}

// walkLinks follows the sysfs links kind ("holders", "slaves") of the
// device directories in queue, breadth first, and calls found with each
// device directory reached that seen does not hold yet, and the one it
// was reached from, adding it to seen.
func walkLinks(queue []string, kind string, seen map[string]bool, found func(dev, from string)) {
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range links(cur, kind) {
			if seen[d] {
				continue
			}
			seen[d] = true
			found(d, cur)
			queue = append(queue, d)
		}
	}
}
