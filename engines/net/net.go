// Package net is gofio's net engine, fio's engines/net.c: a receiving job
// (listen=1 over TCP; the reading job over UDP or a unix socket) and a
// sending job (hostname=) in one job file move data over a socket, as
// fio's netio.fio does. Stream sockets (tcp, tcpv6, unix): the listening
// socket is bound when the engine opens, before the run group starts, and
// the connection is accepted or made at the first request (fio does both
// when it opens the job's file; gofio cannot block there, since every job
// of a group opens its engine before any starts); a receiver waits at
// most a minute for its sender, where fio waits for ever. Datagrams (udp,
// udpv6, multicast with interface= and ttl=): see udp.go; the sender's
// close message ends the receiver through the run core's ender hook.
// nodelay (TCP_NODELAY), window_size (SO_SNDBUF and SO_RCVBUF) and mss
// (TCP_MAXSEG) are set as fio sets them. With pingpong=1 every send waits
// for the same number of bytes to come back and every receive sends them
// back. Each numjobs clone uses port= plus its number, as in fio. A
// receive or send may move less than the request (a short I/O the run
// core completes).
package net

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// acceptWait bounds how long a receiver waits for its sender to connect.
const acceptWait = 60 * time.Second

// Engine moves requests over one stream socket.
type Engine struct {
	engines.Sync
	job      *jobfile.Job
	opts     *Options      // the job's net options
	listenFd int           // the bound, listening socket (listen=1), else -1
	fd       int           // the connection, -1 until the first request
	port     int           // port= plus the numjobs clone's number, as fio
	dest     unix.Sockaddr // UDP: where sendto sends (hostname:port, or a pingpong receiver's sender)
	started  bool          // UDP: the link is open
	ended    bool          // UDP: the receiver got the close message
	// A stream sender's address, resolved when the engine opens, as fio
	// resolves it at setup.
	domain int
	sa     unix.Sockaddr
	// The failure of the last connect or link open, for Failure.
	failFn  string
	failErr error
}

var _ engines.Failer = (*Engine)(nil)

// Failure returns, once, what the last failed connect (or UDP link open)
// failed in and why, with host and port.
func (e *Engine) Failure() (string, error) {
	fn, err := e.failFn, e.failErr
	e.failFn, e.failErr = "", nil
	return fn, err
}

// failed records a connect-time failure of fn and returns its errno as a
// request result.
func (e *Engine) failed(fn string, err error) int32 {
	e.failFn, e.failErr = fn, err
	return -int32(engines.Errno(err))
}

// Open checks the options and, for a receiver, binds and listens.
func Open(s engines.Setup) (engines.Engine, error) {
	j := s.Job
	if j == nil {
		return nil, errors.New("net: no job")
	}
	e := &Engine{job: j, opts: optionsOf(j), listenFd: -1, fd: -1, port: optionsOf(j).Port + j.SubjobNumber}
	var err error
	if e.Sync, err = engines.NewSync("net", s.Depth, max(len(s.Files), 1), false, e.do); err != nil {
		return nil, err
	}
	if isUDP(j) {
		if err := e.openUDP(); err != nil {
			return nil, err
		}
		return e, nil
	}
	// Over a unix socket the reading job listens, as in fio.
	if optionsOf(j).Listen || (optionsOf(j).Protocol == "unix" && j.RW.HasRead()) {
		if e.listenFd, err = listen(j, e.port); err != nil {
			return nil, err
		}
		return e, nil
	}
	if e.domain, e.sa, err = sockaddr(e.opts, e.port, false); err != nil {
		return nil, err
	}
	return e, nil
}

// sockaddr returns the job's address: hostname:port for TCP, hostname
// (a path) for a unix socket. A listener without a hostname binds every
// address.
func sockaddr(o *Options, port int, listening bool) (domain int, sa unix.Sockaddr, err error) {
	switch o.Protocol {
	case "unix":
		if o.Hostname == "" {
			return 0, nil, fmt.Errorf("net: protocol=unix needs hostname= (the socket's path): %w", unix.EINVAL)
		}
		return unix.AF_UNIX, &unix.SockaddrUnix{Name: o.Hostname}, nil
	case "tcp", "tcpv6":
		if port == 0 {
			return 0, nil, fmt.Errorf("net: no port has been specified which is required for the tcp protocol: %w", unix.EINVAL)
		}
		v6 := o.Protocol == "tcpv6"
		host := o.Hostname
		if host == "" && !listening {
			return 0, nil, fmt.Errorf("net: connect with no host to connect to (no hostname= set; a receiving job sets listen=1): %w", unix.EINVAL)
		}
		ip, err := resolve(host, v6)
		if err != nil {
			return 0, nil, err
		}
		if v6 {
			a := &unix.SockaddrInet6{Port: port}
			copy(a.Addr[:], ip)
			return unix.AF_INET6, a, nil
		}
		a := &unix.SockaddrInet4{Port: port}
		copy(a.Addr[:], ip)
		return unix.AF_INET, a, nil
	}
	return 0, nil, fmt.Errorf("net: protocol=%s is not supported by gofio: %w", o.Protocol, unix.EINVAL)
}

func listen(j *jobfile.Job, port int) (int, error) {
	domain, sa, err := sockaddr(optionsOf(j), port, true)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("net: socket: %w", err)
	}
	if domain == unix.AF_UNIX {
		_ = unix.Unlink(optionsOf(j).Hostname) // fio unlinks a stale socket path too
	} else {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	}
	if err := setOptions(fd, j, domain); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("net: bind %s: %w", where(optionsOf(j), port), err)
	}
	if err := unix.Listen(fd, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("net: listen: %w", err)
	}
	return fd, nil
}

func where(o *Options, port int) string {
	if o.Protocol == "unix" {
		return o.Hostname
	}
	return o.Hostname + ":" + strconv.Itoa(port)
}

// setOptions sets nodelay, window_size and mss as fio's net engine does.
func setOptions(fd int, j *jobfile.Job, domain int) error {
	if domain == unix.AF_UNIX {
		return nil
	}
	if optionsOf(j).NoDelay {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
			return fmt.Errorf("net: cannot set TCP_NODELAY: %w", err)
		}
	}
	if optionsOf(j).WindowSize > 0 {
		for _, opt := range []int{unix.SO_SNDBUF, unix.SO_RCVBUF} {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, optionsOf(j).WindowSize); err != nil {
				return fmt.Errorf("net: window_size: %w", err)
			}
		}
	}
	if optionsOf(j).MSS > 0 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_MAXSEG, optionsOf(j).MSS); err != nil {
			return fmt.Errorf("net: mss: %w", err)
		}
	}
	return nil
}

// connect makes the job's connection: accept on the listening socket, or
// connect to hostname:port. It returns fio's func= of what failed and the
// error, which names the host and port (or the socket's path).
func (e *Engine) connect() (string, error) {
	j := e.job
	at := where(e.opts, e.port)
	if e.listenFd >= 0 {
		// fio waits for the sender without end; gofio gives up after
		// acceptWait, so a sender that failed cannot hang the run.
		pfd := []unix.PollFd{{Fd: int32(e.listenFd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(pfd, int(acceptWait.Milliseconds()))
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return "poll", fmt.Errorf("net: wait for a connection on %s: %w", at, err)
			}
			if n == 0 {
				return "accept", fmt.Errorf("net: no connection on %s within %v: %w", at, acceptWait, unix.ETIMEDOUT)
			}
			break
		}
		fd, _, err := unix.Accept4(e.listenFd, unix.SOCK_CLOEXEC)
		if err != nil {
			return "accept", fmt.Errorf("net: accept on %s: %w", at, err)
		}
		e.fd = fd
		if optionsOf(j).Protocol != "unix" && optionsOf(j).NoDelay {
			if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
				return "setsockopt", fmt.Errorf("net: cannot set TCP_NODELAY on the connection from %s (disable with nodelay=0): %w", at, err)
			}
		}
		return "", nil
	}
	fd, err := unix.Socket(e.domain, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", fmt.Errorf("net: socket for %s: %w", at, err)
	}
	if err := setOptions(fd, j, e.domain); err != nil {
		unix.Close(fd)
		return "setsockopt", fmt.Errorf("%w (connecting to %s)", err, at)
	}
	if err := unix.Connect(fd, e.sa); err != nil {
		unix.Close(fd)
		return "connect", fmt.Errorf("net: connect to %s: %w", at, err)
	}
	e.fd = fd
	return "", nil
}

// do sends a write or receives a read, connecting first if need be; with
// pingpong the reply follows.
func (e *Engine) do(r *engines.Request) int32 {
	if isUDP(e.job) && !e.started {
		if err := e.udpStart(); err != nil {
			return e.failed("udp link open", fmt.Errorf("net: udp link open with %s: %w", where(e.opts, e.port), err))
		}
		e.started = true
	}
	if e.fd < 0 {
		if fn, err := e.connect(); err != nil {
			return e.failed(fn, err)
		}
	}
	switch r.Op {
	case engines.OpWrite:
		n, err := e.send(r.Buf)
		if err == nil && e.opts.PingPong && n > 0 {
			err = e.full(r.Buf[:n], false)
		}
		return res(n, err)
	case engines.OpRead:
		n, err := e.recv(r.Buf)
		if err == nil && isUDP(e.job) && isClose(r.Buf[:n]) {
			e.ended = true
			return 0
		}
		if err == nil && e.opts.PingPong && n > 0 {
			err = e.full(r.Buf[:n], true)
		}
		return res(n, err)
	}
	return 0 // the syncs (fsync, fdatasync, sync_file_range) do nothing on a socket, as in fio
}

// send sends b: by sendto over UDP, else on the connection. A signal
// that interrupts it (the Go runtime's preemption signal included) is not
// an error: the call is made again, as for recv.
func (e *Engine) send(b []byte) (int, error) {
	for {
		var n int
		var err error
		if isUDP(e.job) {
			if err = unix.Sendto(e.fd, b, 0, e.dest); err == nil {
				n = len(b)
			}
		} else {
			n, err = unix.SendmsgN(e.fd, b, nil, nil, unix.MSG_NOSIGNAL)
		}
		if err != unix.EINTR {
			return n, err
		}
	}
}

// recv receives into b. A socket with a receive timeout (SO_RCVTIMEO, set
// on UDP sockets) is not restarted after a signal, so EINTR, which the Go
// runtime's preemption signal causes, is retried here.
func (e *Engine) recv(b []byte) (int, error) {
	for {
		n, err := unix.Read(e.fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// full moves all of b the other way (the pingpong reply): sends it when
// send is set, else receives it.
func (e *Engine) full(b []byte, send bool) error {
	for len(b) > 0 {
		var n int
		var err error
		if send {
			n, err = e.send(b)
		} else {
			n, err = e.recv(b)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return unix.ECONNRESET
		}
		b = b[n:]
	}
	return nil
}

func res(n int, err error) int32 {
	if err != nil {
		return -int32(engines.Errno(err))
	}
	return int32(n)
}

// Close closes the connection and the listening socket (and removes a
// unix socket's path).
func (e *Engine) Close() error {
	var errs []error
	if isUDP(e.job) {
		if e.started && e.listenFd < 0 {
			e.sendClose()
		}
		if e.fd == e.listenFd {
			e.listenFd = -1
		}
	}
	if e.fd >= 0 {
		errs = append(errs, unix.Close(e.fd))
		e.fd = -1
	}
	if e.listenFd >= 0 {
		errs = append(errs, unix.Close(e.listenFd))
		e.listenFd = -1
		if e.opts.Protocol == "unix" {
			_ = unix.Unlink(e.opts.Hostname)
		}
	}
	return errors.Join(errs...)
}
