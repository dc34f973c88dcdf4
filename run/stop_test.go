package run

import (
	"context"
	"fmt"
	stdnet "net"
	"testing"
	"time"
)

// TestStopEndsEAGAINRetries checks that a stopped run does not keep
// resubmitting I/Os the engine gives back with EAGAIN: a UDP receiver
// whose sender never comes gets EAGAIN once a second (its receive
// timeout), and without the stop rule the run core would retry each
// up to maxEAGAINRetries times, over a minute after ^C. The bound the
// test allows, a quarter of that, holds on any loaded machine.
func TestStopEndsEAGAINRetries(t *testing.T) {
	l, err := stdnet.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.LocalAddr().(*stdnet.UDPAddr).Port
	l.Close()
	jobs := parseJobs(t, t.TempDir(), fmt.Sprintf("[r]\nioengine=net\nprotocol=udp\nport=%d\nrw=read\nbs=64\nsize=1m\n", port))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, jobs, Options{})
		done <- err
	}()
	time.Sleep(1500 * time.Millisecond) // at least one EAGAIN first
	cancel()
	limit := maxEAGAINRetries * time.Second / 4
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("the run did not end within %v of being stopped", limit)
	}
}
