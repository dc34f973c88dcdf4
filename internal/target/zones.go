package target

import (
	"fmt"
	"os"
	"strings"

	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// CheckZoned applies the zone rules fio 3.33 applies at run time,
// not at parse time (jobfile.checkZones has those): zonesize= without
// zonemode=, and for zonemode=zbd the targets gofio emulates zones on
// (regular files and block devices that are not zoned, as fio's
// init_zone_info) against those it refuses: a zoned block device, whose
// zones gofio does not read, and a pipe or character device.
func CheckZoned(j *jobfile.Job) error {
	if j.Zones.SizeWithoutMode {
		return fmt.Errorf("%s: zonesize=%d without zonemode=: fio 3.33's default zonemode is none, and --zonemode=none and --zonesize are not compatible (add zonemode=strided)", j.Name, j.Zones.Size)
	}
	if j.Zones.Mode != "zbd" {
		return nil
	}
	for _, f := range Names(j) {
		if f == "-" {
			return fmt.Errorf("%s: zonemode=zbd does not support pipes", j.Name)
		}
		var st unix.Stat_t
		if unix.Stat(f, &st) != nil {
			continue // fio fails the job at setup (planZones)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFCHR:
			return fmt.Errorf("%s: zonemode=zbd on %s: gofio emulates zones on regular files and block devices, not on character devices", j.Name, f)
		case unix.S_IFBLK:
			if model, err := zonedModel(f); err == nil && model != "none" {
				return fmt.Errorf("%s: zonemode=zbd on %s: it is a %s zoned block device; gofio emulates zones on regular files and block devices that are not zoned, and does not read a zoned device's zones (BLKREPORTZONE) yet", j.Name, f, model)
			}
		}
	}
	return nil
}

// zonedModel returns the zoned model (none, host-aware, host-managed) of
// block device path, from /sys/dev/block/MAJ:MIN/queue/zoned.
func zonedModel(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("%s is not a block device", path)
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev)))
	b, err := os.ReadFile(sys + "/queue/zoned")
	if err != nil {
		// A partition has its queue in the parent device's directory.
		if b, err = os.ReadFile(sys + "/../queue/zoned"); err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(string(b)), nil
}
