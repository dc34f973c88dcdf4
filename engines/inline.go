package engines

import "golang.org/x/sys/unix"

// inlineFS are the filesystems (statfs f_type) whose reads and writes the
// kernel runs inside the submitting call even for io_uring and libaio:
// they do not support IOCB_NOWAIT, so the I/O sleeps in io_uring_enter or
// io_submit for as long as the server or the network takes. Checked on
// Linux 6.18 for FUSE (a FUSE read stalls io_uring_enter); the network
// filesystems behave the same way.
var inlineFS = map[int64]string{
	0x65735546: "fuse",
	0x6969:     "nfs",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x00c36400: "ceph",
	0x01021997: "9p",
}

// SubmitsMayBlock reports whether a submit of I/O on any of fds may sleep
// in the kernel for as long as the I/O takes (see inlineFS). An engine
// must then make its submitting system calls through the runtime's
// syscall hand-off, never a raw call that keeps the P: a thread asleep in
// a raw call holds up every stop-the-world of the garbage collector, and
// with it the whole process (its status line, its io_timeout watchdog, a
// FUSE server in the same process), for as long as the I/O stalls.
func SubmitsMayBlock(fds []int) bool {
	for _, fd := range fds {
		var st unix.Statfs_t
		if unix.Fstatfs(fd, &st) != nil {
			continue
		}
		if _, ok := inlineFS[int64(st.Type)&0xffffffff]; ok {
			return true
		}
	}
	return false
}
