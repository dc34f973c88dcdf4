package net

import (
	"encoding/binary"
	"fmt"
	stdnet "net"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// fio's UDP link messages (engines/net.c): a sender opens the link with
// FIO_LINK_OPEN (big-endian, as fio writes it with htonl) and closes it
// with FIO_LINK_CLOSE (little-endian, cpu_to_le32); a receiver ends its
// job on the close message.
const (
	linkMagic = 0x6c696e6b // FIO_LINK_OPEN_CLOSE_MAGIC
	linkOpen  = 0x98
	linkClose = 0x89
	linkLen   = 8
)

// udpWait bounds one receive, so that a receiver whose sender died or
// whose close message was lost ends with EAGAIN instead of waiting for
// ever (fio waits); the run core retries EAGAIN a bounded number of times.
const udpWait = time.Second

func isUDP(j *jobfile.Job) bool {
	return optionsOf(j).Protocol == "udp" || optionsOf(j).Protocol == "udpv6"
}

// openUDP makes the job's datagram socket: the receiver (rw=read) binds
// the port, joining hostname's multicast group if it is one; the sender
// sends to hostname:port, with ttl and interface for multicast.
func (e *Engine) openUDP() error {
	j := e.job
	v6 := optionsOf(j).Protocol == "udpv6"
	domain := unix.AF_INET
	if v6 {
		domain = unix.AF_INET6
	}
	fd, err := unix.Socket(domain, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("net: socket: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
		}
	}()
	if optionsOf(j).WindowSize > 0 {
		for _, opt := range []int{unix.SO_SNDBUF, unix.SO_RCVBUF} {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, optionsOf(j).WindowSize); err != nil {
				return fmt.Errorf("net: window_size: %w", err)
			}
		}
	}
	group := multicast(optionsOf(j).Hostname)
	if j.RW.HasRead() {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
		tv := unix.NsecToTimeval(int64(udpWait))
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return fmt.Errorf("net: SO_RCVTIMEO: %w", err)
		}
		_, sa, err := sockaddr(&Options{Protocol: map[bool]string{false: "tcp", true: "tcpv6"}[v6]}, e.port, true)
		if err != nil {
			return err
		}
		if err := unix.Bind(fd, sa); err != nil {
			return fmt.Errorf("net: bind port %d: %w", e.port, err)
		}
		if group != nil {
			mreq := &unix.IPMreq{}
			copy(mreq.Multiaddr[:], group)
			if optionsOf(j).Interface != "" {
				copy(mreq.Interface[:], stdnet.ParseIP(optionsOf(j).Interface).To4())
			}
			if err := unix.SetsockoptIPMreq(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, mreq); err != nil {
				return fmt.Errorf("net: join multicast group %s: %w", optionsOf(j).Hostname, err)
			}
		}
		e.listenFd = fd
		ok = true
		return nil
	}
	if group != nil {
		if optionsOf(j).Interface != "" {
			ip := stdnet.ParseIP(optionsOf(j).Interface).To4()
			if ip == nil {
				return fmt.Errorf("net: interface=%s is not an IPv4 address", optionsOf(j).Interface)
			}
			var a [4]byte
			copy(a[:], ip)
			if err := unix.SetsockoptInet4Addr(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, a); err != nil {
				return fmt.Errorf("net: IP_MULTICAST_IF: %w", err)
			}
		}
		if err := unix.SetsockoptByte(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, byte(optionsOf(j).TTL)); err != nil {
			return fmt.Errorf("net: IP_MULTICAST_TTL: %w", err)
		}
	}
	_, sa, err := sockaddr(&Options{Protocol: map[bool]string{false: "tcp", true: "tcpv6"}[v6],
		Hostname: optionsOf(j).Hostname}, e.port, false)
	if err != nil {
		return err
	}
	// fio's UDP sender does not connect: it sends with sendto, so that
	// the pingpong replies, which come from the receiver's own address
	// and not from hostname (a multicast group), still reach it. A
	// receive timeout bounds the wait for a reply, as for the receiver.
	tv := unix.NsecToTimeval(int64(udpWait))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("net: SO_RCVTIMEO: %w", err)
	}
	e.dest = sa
	e.fd = fd
	ok = true
	return nil
}

// multicast returns host's IPv4 address when it is a multicast group.
func multicast(host string) []byte {
	ip := stdnet.ParseIP(host).To4()
	if ip == nil || !ip.IsMulticast() {
		return nil
	}
	return ip
}

// udpStart opens the link: the sender sends fio's open message; the
// receiver waits for it and, for pingpong replies, keeps its sender's
// address.
func (e *Engine) udpStart() error {
	var msg [linkLen]byte
	if e.listenFd < 0 {
		binary.BigEndian.PutUint32(msg[0:], linkMagic)
		binary.BigEndian.PutUint32(msg[4:], linkOpen)
		return unix.Sendto(e.fd, msg[:], 0, e.dest)
	}
	e.fd = e.listenFd
	for {
		n, from, err := unix.Recvfrom(e.fd, msg[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == linkLen && binary.BigEndian.Uint32(msg[0:]) == linkMagic && binary.BigEndian.Uint32(msg[4:]) == linkOpen {
			if e.opts.PingPong && from != nil {
				// Replies go to the sender by sendto, as fio's: a
				// socket connected back to it would stop receiving
				// the datagrams sent to a multicast group (connect
				// binds its receive address to a unicast one).
				e.dest = from
			}
			return nil
		}
	}
}

// isClose reports whether b is fio's close message.
func isClose(b []byte) bool {
	return len(b) == linkLen && binary.LittleEndian.Uint32(b[0:]) == linkMagic && binary.LittleEndian.Uint32(b[4:]) == linkClose
}

// sendClose tells the receiver the link is closing.
func (e *Engine) sendClose() {
	var msg [linkLen]byte
	binary.LittleEndian.PutUint32(msg[0:], linkMagic)
	binary.LittleEndian.PutUint32(msg[4:], linkClose)
	_ = unix.Sendto(e.fd, msg[:], 0, e.dest)
}

// Ended reports that a UDP receiver got the sender's close message: the
// run core then ends the job, as fio's sets td->done.
func (e *Engine) Ended() bool { return e.ended }
