package uringcmd

import (
	"fmt"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/jobfile"
)

// Spec is the io_uring_cmd ioengine: fio's help, its capabilities (it
// takes io_uring's fio options, and holds their values as io_uring does,
// as in fio), what those options need, and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "io_uring_cmd", Help: "io_uring passthrough commands",
	NVMePassthrough: true, OptionsOf: "io_uring", Needs: needs}}

// needs names the first of io_uring's NVMe options the job sets away
// from its default, with the NVMe capability fio 3.42 uses it for: each
// goes into the NVMe commands gofio does not build.
func needs(j *jobfile.Job) (option, msg string) {
	o := iouring.OptionsOf(j)
	const none = "; gofio does not build NVMe commands (run ioengine=io_uring on the namespace's block device)"
	switch {
	case o.ReadFUA:
		return "readfua", "sets Force Unit Access in NVMe Read commands, which needs an NVMe namespace (/dev/ngXnY)" + none
	case o.WriteFUA:
		return "writefua", "sets Force Unit Access in NVMe Write commands, which needs an NVMe namespace (/dev/ngXnY)" + none
	case o.WriteMode != "write":
		return "write_mode", fmt.Sprintf("%s issues %s commands for writes, which need an NVMe namespace (/dev/ngXnY)%s",
			o.WriteMode, map[string]string{"uncor": "NVMe Write Uncorrectable", "zeroes": "NVMe Write Zeroes", "verify": "NVMe Verify"}[o.WriteMode], none)
	case o.Deac:
		return "deac", "sets the Deallocate bit of NVMe Write Zeroes (write_mode=zeroes), which needs an NVMe namespace (/dev/ngXnY)" + none
	case o.VerifyMode != "read":
		return "verify_mode", "compare verifies with NVMe Compare commands, which need an NVMe namespace (/dev/ngXnY)" + none
	case o.Metadata():
		return "md_per_io_size", fmt.Sprintf("a metadata buffer of %d bytes with each NVMe command needs an NVMe namespace "+
			"formatted with metadata (protection information)%s", o.MDPerIOSize, none)
	}
	pi := []struct {
		name string
		set  bool
	}{{"pi_act", !o.PIAct}, {"pi_chk", o.PIChk != ""}, {"apptag", uint32(o.AppTag) != 0x1234}, {"apptag_mask", uint32(o.AppTagMask) != 0xffff}}
	for _, p := range pi {
		if p.set {
			return p.name, "sets the protection information fields of NVMe commands, which need an NVMe namespace " +
				"formatted with protection information" + none
		}
	}
	return "", ""
}
