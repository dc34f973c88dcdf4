package uring

import "strconv"

// This file mirrors the kernel's io_uring user-space ABI (uapi
// include/uapi/linux/io_uring.h): structures with the exact C layout and the
// constants gofio uses. x/sys/unix has none of them.

// Setup flags (IORING_SETUP_*), passed in Params.Flags.
const (
	SetupIOPoll           uint32 = 1 << 0  // busy-poll for completions (IOPOLL)
	SetupSQPoll           uint32 = 1 << 1  // a kernel thread polls the SQ
	SetupSQAff            uint32 = 1 << 2  // pin the SQPOLL thread to Params.SQThreadCPU
	SetupCQSize           uint32 = 1 << 3  // Params.CQEntries sizes the CQ
	SetupClamp            uint32 = 1 << 4  // clamp sizes to the maxima instead of EINVAL
	SetupAttachWQ         uint32 = 1 << 5  // share the io-wq of Params.WQFd
	SetupRDisabled        uint32 = 1 << 6  // start disabled until EnableRings
	SetupSubmitAll        uint32 = 1 << 7  // keep submitting after a failing SQE
	SetupCoopTaskrun      uint32 = 1 << 8  // no IPI for task work
	SetupTaskrunFlag      uint32 = 1 << 9  // set SQTaskrun when task work is pending
	SetupSQE128           uint32 = 1 << 10 // 128-byte SQEs
	SetupCQE32            uint32 = 1 << 11 // 32-byte CQEs
	SetupSingleIssuer     uint32 = 1 << 12 // only the creating thread submits
	SetupDeferTaskrun     uint32 = 1 << 13 // task work runs only in GETEVENTS
	SetupNoMmap           uint32 = 1 << 14 // application-provided ring memory (unsupported here)
	SetupRegisteredFdOnly uint32 = 1 << 15 // return a registered ring index (unsupported here)
	SetupNoSQArray        uint32 = 1 << 16 // no SQ index array
)

// setupFlagNames names each setup flag bit, in bit order.
var setupFlagNames = [...]string{
	"IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE", "CLAMP", "ATTACH_WQ", "R_DISABLED",
	"SUBMIT_ALL", "COOP_TASKRUN", "TASKRUN_FLAG", "SQE128", "CQE32",
	"SINGLE_ISSUER", "DEFER_TASKRUN", "NO_MMAP", "REGISTERED_FD_ONLY", "NO_SQARRAY",
	"HYBRID_IOPOLL", "CQE_MIXED", "SQE_MIXED", "SQ_REWIND",
}

// Feature bits (IORING_FEAT_*), returned in Params.Features.
const (
	FeatSingleMmap     uint32 = 1 << 0
	FeatNoDrop         uint32 = 1 << 1
	FeatSubmitStable   uint32 = 1 << 2
	FeatRWCurPos       uint32 = 1 << 3
	FeatCurPersonality uint32 = 1 << 4
	FeatFastPoll       uint32 = 1 << 5
	FeatPoll32Bits     uint32 = 1 << 6
	FeatSQPollNonfixed uint32 = 1 << 7
	FeatExtArg         uint32 = 1 << 8
	FeatNativeWorkers  uint32 = 1 << 9
	FeatRsrcTags       uint32 = 1 << 10
	FeatCQESkip        uint32 = 1 << 11
	FeatLinkedFile     uint32 = 1 << 12
	FeatRegRegRing     uint32 = 1 << 13
	FeatRecvSendBundle uint32 = 1 << 14
	FeatMinTimeout     uint32 = 1 << 15
	FeatRWAttr         uint32 = 1 << 16
	FeatNoIOWait       uint32 = 1 << 17
)

// featureNames names each feature bit, in bit order.
var featureNames = [...]string{
	"SINGLE_MMAP", "NODROP", "SUBMIT_STABLE", "RW_CUR_POS", "CUR_PERSONALITY",
	"FAST_POLL", "POLL_32BITS", "SQPOLL_NONFIXED", "EXT_ARG", "NATIVE_WORKERS",
	"RSRC_TAGS", "CQE_SKIP", "LINKED_FILE", "REG_REG_RING", "RECVSEND_BUNDLE",
	"MIN_TIMEOUT", "RW_ATTR", "NO_IOWAIT",
}

// Enter flags (IORING_ENTER_*).
const (
	EnterGetEvents      uint32 = 1 << 0
	EnterSQWakeup       uint32 = 1 << 1
	EnterSQWait         uint32 = 1 << 2
	EnterExtArg         uint32 = 1 << 3
	EnterRegisteredRing uint32 = 1 << 4
)

// SQ ring flags (IORING_SQ_*), read from the shared sq_flags word.
const (
	SQNeedWakeup uint32 = 1 << 0 // the SQPOLL thread sleeps
	SQCQOverflow uint32 = 1 << 1 // CQEs wait in the kernel's overflow list
	SQTaskrun    uint32 = 1 << 2 // task work is pending (TASKRUN_FLAG)
)

// SQE flags (IOSQE_*), set with SetFlags.
const (
	SqeFixedFile      uint8 = 1 << 0
	SqeIODrain        uint8 = 1 << 1
	SqeIOLink         uint8 = 1 << 2
	SqeIOHardlink     uint8 = 1 << 3
	SqeAsync          uint8 = 1 << 4
	SqeBufferSelect   uint8 = 1 << 5
	SqeCQESkipSuccess uint8 = 1 << 6
)

// Opcodes (IORING_OP_*) of the file I/O subset.
const (
	OpNop         uint8 = 0
	OpReadv       uint8 = 1
	OpWritev      uint8 = 2
	OpFsync       uint8 = 3
	OpReadFixed   uint8 = 4
	OpWriteFixed  uint8 = 5
	OpSyncRange   uint8 = 8 // IORING_OP_SYNC_FILE_RANGE
	OpTimeout     uint8 = 11
	OpAsyncCancel uint8 = 14
	OpRead        uint8 = 22
	OpWrite       uint8 = 23
)

// FsyncDatasync makes PrepareFsync an fdatasync (IORING_FSYNC_DATASYNC).
const FsyncDatasync uint32 = 1 << 0

// Timeout flags (IORING_TIMEOUT_*).
const (
	TimeoutAbs uint32 = 1 << 0
)

// Limits of the kernel (io_uring.h, rsrc.c).
const (
	MaxEntries      = 32768     // IORING_MAX_ENTRIES
	MaxCQEntries    = 2 * 32768 // IORING_MAX_CQ_ENTRIES
	MaxRegBuffers   = 1 << 14   // IORING_MAX_REG_BUFFERS
	MaxRegBufferLen = 1 << 30   // largest registered buffer (SZ_1G)
)

// mmap offsets (IORING_OFF_*).
const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// Register opcodes (enum io_uring_register_op).
const (
	registerBuffers          = 0
	unregisterBuffers        = 1
	registerFiles            = 2
	unregisterFiles          = 3
	registerProbe            = 8
	registerEnableRings      = 12
	registerIOWQAff          = 17
	unregisterIOWQAff        = 18
	registerIOWQMaxWorkers   = 19
	registerRingFds          = 20
	unregisterRingFds        = 21
	registerUseRegisteredRng = 1 << 31
)

// SQRingOffsets is struct io_sqring_offsets: where the kernel put each SQ
// ring field inside the ring mapping.
type SQRingOffsets struct {
	Head        uint32
	Tail        uint32
	RingMask    uint32
	RingEntries uint32
	Flags       uint32
	Dropped     uint32
	Array       uint32
	Resv1       uint32
	UserAddr    uint64
}

// CQRingOffsets is struct io_cqring_offsets: where the kernel put each CQ
// ring field inside the ring mapping.
type CQRingOffsets struct {
	Head        uint32
	Tail        uint32
	RingMask    uint32
	RingEntries uint32
	Overflow    uint32
	CQEs        uint32
	Flags       uint32
	Resv1       uint32
	UserAddr    uint64
}

// Params is struct io_uring_params. Set the inputs (CQEntries with
// SetupCQSize, Flags, SQThreadCPU, SQThreadIdle in ms, WQFd) before
// QueueInitParams; the kernel fills in the rest.
type Params struct {
	SQEntries    uint32
	CQEntries    uint32
	Flags        uint32
	SQThreadCPU  uint32
	SQThreadIdle uint32
	Features     uint32
	WQFd         uint32
	Resv         [3]uint32
	SQOff        SQRingOffsets
	CQOff        CQRingOffsets
}

// SubmissionQueueEntry is struct io_uring_sqe (64 bytes). Field names follow
// giouring. Addresses are plain integers: memory they point at must stay
// alive and unmoved until the CQE arrives.
type SubmissionQueueEntry struct {
	OpCode      uint8
	Flags       uint8
	IoPrio      uint16
	Fd          int32
	Off         uint64
	Addr        uint64
	Len         uint32
	OpcodeFlags uint32
	UserData    uint64
	BufIG       uint16
	Personality uint16
	SpliceFdIn  int32
	Addr3       uint64
	Pad2        uint64
}

// SQE is a short name for SubmissionQueueEntry.
type SQE = SubmissionQueueEntry

// CompletionQueueEvent is struct io_uring_cqe (16 bytes): the user data of
// the SQE, its result (bytes, or a negative errno) and CQE flags.
type CompletionQueueEvent struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// CQE is a short name for CompletionQueueEvent.
type CQE = CompletionQueueEvent

// GetData64 returns the CQE's user data.
func (c *CompletionQueueEvent) GetData64() uint64 { return c.UserData }

// geteventsArg is struct io_uring_getevents_arg (24 bytes), used with
// EnterExtArg.
type geteventsArg struct {
	Sigmask   uint64
	SigmaskSz uint32
	MinWait   uint32
	Ts        uint64
}

// ProbeOp is struct io_uring_probe_op.
type ProbeOp struct {
	Op    uint8
	Resv  uint8
	Flags uint16
	Resv2 uint32
}

// probeOpSupported is IO_URING_OP_SUPPORTED.
const probeOpSupported = 1

// Probe is struct io_uring_probe with room for 256 opcodes.
type Probe struct {
	LastOp uint8
	OpsLen uint8
	Resv   uint16
	Resv2  [3]uint32
	Ops    [256]ProbeOp
}

// IsSupported reports whether the kernel supports opcode op.
func (p *Probe) IsSupported(op uint8) bool {
	if p == nil || op > p.LastOp || int(op) >= int(p.OpsLen) {
		return false
	}
	return p.Ops[op].Flags&probeOpSupported != 0
}

// FlagNames returns the IORING_SETUP_* names of the bits in flags, in bit
// order; unknown bits appear as "bit N".
func FlagNames(flags uint32) []string {
	return bitNames(flags, setupFlagNames[:])
}

// FeatureNames returns the IORING_FEAT_* names of the bits in features.
func FeatureNames(features uint32) []string {
	return bitNames(features, featureNames[:])
}

func bitNames(v uint32, names []string) []string {
	var out []string
	for i := 0; i < 32; i++ {
		if v&(1<<i) == 0 {
			continue
		}
		if i < len(names) {
			out = append(out, names[i])
		} else {
			out = append(out, "bit "+strconv.Itoa(i))
		}
	}
	return out
}
