package blockdev

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fakeSys builds a sysfs tree with a disk sda (8:0) holding sda1 (8:1) and
// sda2 (8:2), a dm-0 (253:0) stacked on sda2, and a dm-1 (253:1) on dm-0.
func fakeSys(t *testing.T) sysfs {
	t.Helper()
	root := t.TempDir()
	mk := func(rel, dev string) string {
		d := filepath.Join(root, "devices", rel)
		if err := os.MkdirAll(filepath.Join(d, "holders"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(d, "slaves"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "dev"), []byte(dev+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "dev", "block"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(d, filepath.Join(root, "dev", "block", dev)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	link := func(from, kind, to string) {
		if err := os.Symlink(to, filepath.Join(from, kind, filepath.Base(to))); err != nil {
			t.Fatal(err)
		}
	}
	sda := mk("pci/block/sda", "8:0")
	sda1 := mk("pci/block/sda/sda1", "8:1")
	sda2 := mk("pci/block/sda/sda2", "8:2")
	for _, p := range []string{sda1, sda2} {
		if err := os.WriteFile(filepath.Join(p, "partition"), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dm0 := mk("virtual/block/dm-0", "253:0")
	dm1 := mk("virtual/block/dm-1", "253:1")
	link(sda2, "holders", dm0)
	link(dm0, "slaves", sda2)
	link(dm0, "holders", dm1)
	link(dm1, "slaves", dm0)
	_ = sda
	return sysfs{root: root}
}

func TestRelated(t *testing.T) {
	s := fakeSys(t)
	cases := []struct {
		dev  devNum
		want []string
	}{
		// Whole disk: its partitions and everything stacked on them.
		{devNum{8, 0}, []string{"253:0", "253:1", "8:0", "8:1", "8:2"}},
		// Partition: its whole disk, and its own holders, not its sibling.
		{devNum{8, 1}, []string{"8:0", "8:1"}},
		{devNum{8, 2}, []string{"253:0", "253:1", "8:0", "8:2"}},
		// dm on dm: the holder above and the slaves below.
		{devNum{253, 0}, []string{"253:0", "253:1", "8:2"}},
		{devNum{253, 1}, []string{"253:0", "253:1", "8:2"}},
		// Unknown device: only itself.
		{devNum{9, 9}, []string{"9:9"}},
	}
	for _, c := range cases {
		var got []string
		for d := range s.related(c.dev) {
			got = append(got, d.String())
		}
		sort.Strings(got)
		if len(got) != len(c.want) {
			t.Errorf("related(%s) = %v, want %v", c.dev, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("related(%s) = %v, want %v", c.dev, got, c.want)
				break
			}
		}
	}
}
