package run

import (
	"fmt"
	"os"
	"strings"

	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// checkZonedTargets applies the zone rules fio 3.33 applies at run time,
// not at parse time (jobfile.checkZones has those): zonesize= without
// zonemode=, and zbd on a target
// that is not a zoned block device (with the reason), zbd itself, which
// gofio parses as fio does but does not run yet.
func checkZonedTargets(j *jobfile.Job) error {
	if j.Zones.SizeWithoutMode {
		return fmt.Errorf("%s: zonesize=%d without zonemode=: fio 3.33's default zonemode is none, and --zonemode=none and --zonesize are not compatible (add zonemode=strided)", j.Name, j.Zones.Size)
	}
	switch j.Zones.Mode {
	case "zbd":
		for _, f := range j.Filenames {
			if model, err := zonedModel(f); err != nil || model == "none" {
				why := "not a block device"
				if err == nil {
					why = "its queue/zoned is none"
				}
				return fmt.Errorf("%s: zonemode=zbd needs a zoned block device; %s is not one (%s)", j.Name, f, why)
			}
		}
		if len(j.Filenames) == 0 {
			return fmt.Errorf("%s: zonemode=zbd needs a zoned block device as filename=", j.Name)
		}
		return fmt.Errorf("%s: zonemode=zbd: gofio parses it as fio does but does not run zoned I/O yet", j.Name)
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
