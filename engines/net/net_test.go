package net

import (
	"bytes"
	"errors"
	"fmt"
	stdnet "net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) int {
	l, err := stdnet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*stdnet.TCPAddr).Port
}

// transfer runs a receiver and a sender engine for n requests of 4 KiB
// and returns what the receiver got.
func transfer(t *testing.T, recv, send *jobfile.Job, n int) []byte {
	t.Helper()
	r, err := Open(engines.Setup{Job: recv, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Open(engines.Setup{Job: send, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4096)
		out := make([]engines.Completion, 1)
		for total := 0; total < n*4096; {
			r.Queue(0, &engines.Request{Op: engines.OpRead, Buf: buf})
			r.Submit()
			r.Reap(out, 1)
			if out[0].Res <= 0 {
				t.Errorf("receive: res %d", out[0].Res)
				return
			}
			got.Write(buf[:out[0].Res])
			total += int(out[0].Res)
		}
	}()
	out := make([]engines.Completion, 1)
	for i := 0; i < n; i++ {
		buf := bytes.Repeat([]byte{byte(i)}, 4096)
		for off := 0; off < len(buf); {
			s.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: buf[off:]})
			s.Submit()
			s.Reap(out, 1)
			if out[0].Res <= 0 {
				t.Fatalf("send %d: res %d", i, out[0].Res)
			}
			off += int(out[0].Res)
		}
	}
	wg.Wait()
	return got.Bytes()
}

func check(t *testing.T, got []byte, n int) {
	t.Helper()
	if len(got) != n*4096 {
		t.Fatalf("received %d bytes, want %d", len(got), n*4096)
	}
	for i := 0; i < n; i++ {
		if got[i*4096] != byte(i) || got[i*4096+4095] != byte(i) {
			t.Fatalf("block %d arrived damaged or out of order", i)
		}
	}
}

func TestTCP(t *testing.T) {
	port := freePort(t)
	opts := Options{Protocol: "tcp", Port: port, NoDelay: true, WindowSize: 1 << 18}
	recv := withOptions(jobfile.Job{RW: jobfile.RWRead}, opts)
	optionsOf(recv).Listen = true
	send := withOptions(jobfile.Job{RW: jobfile.RWWrite}, opts)
	optionsOf(send).Hostname = "localhost"
	check(t, transfer(t, recv, send, 64), 64)
}

func TestTCPPingPong(t *testing.T) {
	port := freePort(t)
	opts := Options{Protocol: "tcp", Port: port, PingPong: true}
	recv := withOptions(jobfile.Job{RW: jobfile.RWRead}, opts)
	optionsOf(recv).Listen = true
	send := withOptions(jobfile.Job{RW: jobfile.RWWrite}, opts)
	optionsOf(send).Hostname = "127.0.0.1"
	check(t, transfer(t, recv, send, 16), 16)
}

func TestUnix(t *testing.T) {
	opts := Options{Protocol: "unix", Hostname: filepath.Join(t.TempDir(), "s.sock")}
	// Over a unix socket the reading job listens, as in fio.
	check(t, transfer(t, withOptions(jobfile.Job{RW: jobfile.RWRead}, opts), withOptions(jobfile.Job{RW: jobfile.RWWrite}, opts), 32), 32)
}

func TestNumjobsPorts(t *testing.T) {
	port := freePort(t)
	j := withOptions(jobfile.Job{RW: jobfile.RWRead, SubjobNumber: 0}, Options{Protocol: "tcp", Port: port - 1, Listen: true})
	j.SubjobNumber = 1
	e, err := Open(engines.Setup{Job: j, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if p := e.(*Engine).port; p != port {
		t.Errorf("clone 1 of port=%d listens on %d, want %d", port-1, p, port)
	}
}

// TestUDP sends datagrams in lockstep (pingpong, so none is dropped) and
// checks that the sender's close message ends the receiver: a read that
// completes with 0 bytes while Ended reports true.
func TestUDP(t *testing.T) {
	port := freePort(t)
	opts := Options{Protocol: "udp", Port: port, PingPong: true}
	recv := withOptions(jobfile.Job{RW: jobfile.RWRead}, opts)
	send := withOptions(jobfile.Job{RW: jobfile.RWWrite}, opts)
	optionsOf(send).Hostname = "127.0.0.1"
	r, err := Open(engines.Setup{Job: recv, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Open(engines.Setup{Job: send, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	done := make(chan int32, n+1)
	go func() {
		buf := make([]byte, 1024)
		out := make([]engines.Completion, 1)
		for i := 0; i <= n; i++ {
			r.Queue(0, &engines.Request{Op: engines.OpRead, Buf: buf})
			r.Submit()
			r.Reap(out, 1)
			done <- out[0].Res
		}
	}()
	out := make([]engines.Completion, 1)
	for i := 0; i < n; i++ {
		s.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: make([]byte, 1024)})
		s.Submit()
		s.Reap(out, 1)
		if out[0].Res != 1024 {
			t.Fatalf("send %d: res %d", i, out[0].Res)
		}
		if got := <-done; got != 1024 {
			t.Fatalf("receive %d: res %d", i, got)
		}
	}
	if err := s.Close(); err != nil { // sends fio's close message
		t.Fatal(err)
	}
	if got := <-done; got != 0 || !r.(*Engine).Ended() {
		t.Errorf("after the close message: res %d, ended %v; want 0 and true", got, r.(*Engine).Ended())
	}
}

// TestUDPMulticastPingPong is fio's netio_multicast.fio in small: a
// pingpong receiver and a plain receiver join a multicast group, and the
// sender's datagrams to the group reach both while the pingpong replies,
// sent back to the sender's own address, reach the sender. The pingpong
// receiver must not connect back to the sender (connect would bind its
// receive address to a unicast one and cut it off from the group), and
// the sender must not connect to the group (the replies come from the
// receiver's unicast address). Skipped where the host has no multicast
// route.
func TestUDPMulticastPingPong(t *testing.T) {
	port := freePort(t)
	opts := Options{Protocol: "udp", Port: port, Hostname: "239.255.77.77", TTL: 1}
	ping := withOptions(jobfile.Job{RW: jobfile.RWRead}, opts)
	optionsOf(ping).PingPong = true
	plain := withOptions(jobfile.Job{RW: jobfile.RWRead}, opts)
	send := withOptions(jobfile.Job{RW: jobfile.RWWrite}, opts)
	optionsOf(send).PingPong = true
	var recvs []engines.Engine
	for _, j := range []*jobfile.Job{ping, plain} {
		r, err := Open(engines.Setup{Job: j, Files: []int{-1}, Depth: 1})
		if err != nil {
			t.Skipf("no multicast here: %v", err)
		}
		defer r.Close()
		recvs = append(recvs, r)
	}
	s, err := Open(engines.Setup{Job: send, Files: []int{-1}, Depth: 1})
	if err != nil {
		t.Skipf("no multicast here: %v", err)
	}
	defer s.Close()
	const n = 16
	var wg sync.WaitGroup
	got := make([]int, len(recvs))
	for i, r := range recvs {
		wg.Add(1)
		go func(i int, r engines.Engine) {
			defer wg.Done()
			buf := make([]byte, 64)
			out := make([]engines.Completion, 1)
			for k := 0; k < n; k++ {
				r.Queue(0, &engines.Request{Op: engines.OpRead, Buf: buf})
				r.Submit()
				r.Reap(out, 1)
				if out[0].Res != 64 {
					return
				}
				got[i]++
			}
		}(i, r)
	}
	out := make([]engines.Completion, 1)
	for k := 0; k < n; k++ {
		s.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: bytes.Repeat([]byte{byte(k)}, 64)})
		s.Submit()
		s.Reap(out, 1)
		if out[0].Res == -int32(unix.ENETUNREACH) || out[0].Res == -int32(unix.ENODEV) {
			t.Skipf("no multicast route here: res %d", out[0].Res)
		}
		if out[0].Res != 64 {
			t.Fatalf("send %d (pingpong, waits for the reply): res %d", k, out[0].Res)
		}
	}
	wg.Wait()
	if got[0] != n || got[1] != n {
		t.Errorf("pingpong receiver got %d, plain receiver %d datagrams; want %d each", got[0], got[1], n)
	}
}

// TestConnectErrors: what fails when a sender connects says so, with the
// host and port, and keeps its errno: fio's getaddrinfo and missing
// hostname= (EINVAL) fail the engine's open, as fio's setup does; a
// refused connect and a refused socket option fail the first request, and
// Failure then names the function (fio's func=) and the error, once.
func TestConnectErrors(t *testing.T) {
	port := freePort(t)
	tcp := func(host string) *jobfile.Job {
		return withOptions(jobfile.Job{RW: jobfile.RWWrite}, Options{Protocol: "tcp", Port: port, Hostname: host})
	}
	for _, tt := range []struct {
		job  *jobfile.Job
		want string
	}{
		{tcp(""), "net: connect with no host to connect to (no hostname= set"},
		// Not a domain name: refused without asking a resolver.
		{tcp("no such host"), "net: getaddrinfo: host='no such host': "},
		{withOptions(jobfile.Job{RW: jobfile.RWWrite}, Options{Protocol: "tcp", Hostname: "127.0.0.1"}), "net: no port has been specified"},
	} {
		_, err := Open(engines.Setup{Job: tt.job, Files: []int{-1}, Depth: 1})
		if !errors.Is(err, unix.EINVAL) || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("open %q: %v; want EINVAL saying %q", optionsOf(tt.job).Hostname, err, tt.want)
		}
	}
	mss := tcp("127.0.0.1")
	optionsOf(mss).MSS = 1 // below TCP_MIN_MSS: the kernel refuses it
	for _, tt := range []struct {
		job   *jobfile.Job
		fn    string
		errno unix.Errno
		want  string
	}{
		{tcp("127.0.0.1"), "connect", unix.ECONNREFUSED, fmt.Sprintf("net: connect to 127.0.0.1:%d: connection refused", port)},
		{mss, "setsockopt", unix.EINVAL, fmt.Sprintf("net: mss: invalid argument (connecting to 127.0.0.1:%d)", port)},
	} {
		e, err := Open(engines.Setup{Job: tt.job, Files: []int{-1}, Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]engines.Completion, 1)
		e.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: make([]byte, 4096)})
		e.Submit()
		if n, _ := e.Reap(out, 1); n != 1 || out[0].Res != -int32(tt.errno) {
			t.Errorf("%s: request result %+v; want -%d", tt.fn, out[0], tt.errno)
		}
		fn, err := e.(engines.Failer).Failure()
		if fn != tt.fn || !errors.Is(err, tt.errno) || err == nil || err.Error() != tt.want {
			t.Errorf("failure %q %v; want %q %q", fn, err, tt.fn, tt.want)
		}
		if fn, err := e.(engines.Failer).Failure(); fn != "" || err != nil {
			t.Errorf("second Failure %q %v; want none", fn, err)
		}
		e.Close()
	}
}

// withOptions returns j with its engine's own options o, as the parse
// gives them.
func withOptions(j jobfile.Job, o Options) *jobfile.Job {
	j.SetEngineConfig(&o)
	return &j
}
