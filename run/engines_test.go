package run

import (
	"context"
	"fmt"
	stdnet "net"
	"slices"
	"sort"
	"strings"
	"testing"

	netengine "github.com/gofio/gofio/engines/net"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
)

// TestDefaultEnginesFollowTable checks that run opens exactly the engines
// jobfile's engine table says gofio runs.
func TestDefaultEnginesFollowTable(t *testing.T) {
	var have []string
	for name := range DefaultEngines() {
		have = append(have, name)
	}
	want := slices.Clone(jobfile.SupportedEngines())
	sort.Strings(have)
	sort.Strings(want)
	if !slices.Equal(have, want) {
		t.Errorf("DefaultEngines = %v, the engine table runs %v", have, want)
	}
}

// prioEngine records the ioprio of every request it is given.
type prioEngine struct {
	engines.Engine
	prios map[uint16]int
}

func (p *prioEngine) Queue(slot uint32, r *engines.Request) error {
	p.prios[r.IOPrio]++
	return p.Engine.Queue(slot, r)
}

// TestCmdprio checks that cmdprio_percentage gives that share of the I/Os
// the priority (cmdprio_class << 13 | cmdprio), real-time by default, and
// that engines other than io_uring and libaio never get one.
func TestCmdprio(t *testing.T) {
	for _, tt := range []struct {
		engine     string
		pct, class int
		want       uint16
	}{
		{"libaio", 25, 0, 1<<13 | 4},
		{"io_uring", 100, 2, 2<<13 | 4},
		{"psync", 50, 0, 0},
	} {
		dir := t.TempDir()
		rec := &prioEngine{prios: map[uint16]int{}}
		engs := map[string]engines.Opener{tt.engine: func(s engines.Setup) (engines.Engine, error) {
			e, err := null.Open(s)
			rec.Engine = e
			return rec, err
		}}
		j := testJob(dir, "p", jobfile.RWRandRead, tt.engine)
		j.Size = 4 << 20
		j.CmdprioPercentage = [jobfile.NumDirs]int{tt.pct, tt.pct}
		j.CmdprioClass = [jobfile.NumDirs]int{tt.class, tt.class}
		j.Cmdprio = [jobfile.NumDirs]int{4, 4}
		res := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
		total := int(res.Jobs[0].Dirs[0].TotalIOs)
		got := rec.prios[tt.want]
		switch {
		case tt.want == 0 && got != total:
			t.Errorf("%s: %d of %d I/Os without priority, want all (%v)", tt.engine, got, total, rec.prios)
		case tt.want != 0 && len(rec.prios) > 2:
			t.Errorf("%s: priorities %v", tt.engine, rec.prios)
		case tt.want != 0 && (got < total*tt.pct/100-total/8 || got > total*tt.pct/100+total/8):
			t.Errorf("%s: %d of %d I/Os got priority %#x, want about %d%% (%v)", tt.engine, got, total, tt.want, tt.pct, rec.prios)
		}
	}
}

// endingEngine completes its first `after` requests in full, then ends
// the job: every later request moves 0 bytes and Ended reports true.
type endingEngine struct {
	engines.Engine
	after, n int
	lens     map[uint32]int32
}

func (e *endingEngine) Queue(slot uint32, r *engines.Request) error {
	e.lens[slot] = int32(len(r.Buf))
	return e.Engine.Queue(slot, r)
}

func (e *endingEngine) Reap(out []engines.Completion, min int) (int, error) {
	k, err := e.Engine.Reap(out, min)
	for i := range out[:k] {
		e.n++
		if e.n > e.after {
			out[i].Res = 0
		}
	}
	return k, err
}

func (e *endingEngine) Ended() bool { return e.n > e.after }

// TestEngineEndsJob checks that an engine that ends its job (net's UDP
// receiver on fio's close message) stops it without an error, and that
// the request that moved nothing is not counted.
func TestEngineEndsJob(t *testing.T) {
	engs := map[string]engines.Opener{"ending": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		return &endingEngine{Engine: e, after: 5, lens: map[uint32]int32{}}, err
	}}
	j := testJob(t.TempDir(), "end", jobfile.RWRead, "ending")
	res := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
	r := res.Jobs[0]
	if r.Error != 0 || r.Dirs[0].TotalIOs != 5 || r.Dirs[0].IOBytes != 5*4096 {
		t.Errorf("err=%d ios=%d bytes=%d; want no error, 5 I/Os of 4 KiB", r.Error, r.Dirs[0].TotalIOs, r.Dirs[0].IOBytes)
	}
}

// TestNetConnectRefused: a sender whose connect is refused fails as fio's
// does, err=111 with func=connect, and the warning names host and port.
func TestNetConnectRefused(t *testing.T) {
	l, err := stdnet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*stdnet.TCPAddr).Port
	l.Close()
	j := testJob(t.TempDir(), "send", jobfile.RWWrite, "net")
	o := netengine.NewOptions()
	o.Protocol, o.Hostname, o.Port = "tcp", "127.0.0.1", port
	j.Filenames = nil
	j.SetEngineConfig(o)
	var warn syncBuf
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.Error != int(unix.ECONNREFUSED) || r.ErrorText != "func=connect, error=Connection refused" {
		t.Errorf("err=%d %q; want 111, func=connect, error=Connection refused", r.Error, r.ErrorText)
	}
	if want := fmt.Sprintf("connect: net: connect to 127.0.0.1:%d: connection refused", port); !strings.Contains(warn.String(), want) {
		t.Errorf("warnings %q; want %q", warn.String(), want)
	}
}
