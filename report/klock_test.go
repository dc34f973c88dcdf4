package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/klock"
)

func sampleKernelLocks() *klock.Locks {
	l := &klock.Locks{Available: true, CPUNs: 2_000_000_000, IOs: 100_000, Threads: 5, BPFRunNs: 300_000, BPFRuns: 600}
	for _, s := range []klock.Site{
		{Name: "io_wq_enqueue", Subsystem: klock.SubIOWQ, Count: 14252, WaitNs: 40_000_000, SpinNs: 40_000_000},
		{Name: "io_worker_handle_work", Subsystem: klock.SubIOWQ, Count: 12696, WaitNs: 30_000_000, SpinNs: 30_000_000},
		{Name: "__io_req_task_work_add", Subsystem: klock.SubIOUring, Count: 5923, WaitNs: 10_000_000, SpinNs: 10_000_000},
		{Name: "try_to_wake_up", Subsystem: klock.SubOther, Count: 667, WaitNs: 2_000_000, SpinNs: 2_000_000},
		{Name: "blk_mq_dispatch_list", Subsystem: klock.SubBlock, Count: 10, WaitNs: 1_000_000, SpinNs: 1_000_000},
		{Name: "io_cqring_wait", Subsystem: klock.SubIOUring, Count: 2, WaitNs: 500_000},
	} {
		l.AddSite(s)
	}
	l.SortSites()
	return l
}

// TestKernelLocksJSON checks the "kernel_locks" object: the totals, the
// per-I/O figures, the share of CPU, the subsystems in order and every
// site with its count and wait.
func TestKernelLocksJSON(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	printJSON(w, kernelLocksJSON(sampleKernelLocks()), 0)
	w.Flush()
	var got struct {
		Available   bool    `json:"available"`
		Contentions uint64  `json:"contentions"`
		PerIO       float64 `json:"contentions_per_io"`
		WaitPerIO   float64 `json:"wait_ns_per_io"`
		Share       float64 `json:"wait_share"`
		Lost        *uint64 `json:"lost_events"`
		Subsystems  []struct {
			Subsystem string `json:"subsystem"`
			Sites     int    `json:"sites"`
			Count     uint64 `json:"count"`
		} `json:"subsystems"`
		Sites []struct {
			Site   string `json:"site"`
			Count  uint64 `json:"count"`
			WaitNs uint64 `json:"wait_ns"`
		} `json:"sites"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !got.Available || got.Contentions != 33550 || got.PerIO != 0.3355 || got.WaitPerIO != 835 ||
		got.Share != 0.0415 || got.Lost == nil || *got.Lost != 0 {
		t.Fatalf("figures: %+v\n%s", got, buf.String())
	}
	var subs []string
	for _, s := range got.Subsystems {
		subs = append(subs, s.Subsystem)
	}
	if strings.Join(subs, ",") != "io-wq,io_uring,block,other" || got.Subsystems[0].Sites != 2 || got.Subsystems[0].Count != 26948 {
		t.Fatalf("subsystems: %+v", got.Subsystems)
	}
	if len(got.Sites) != 6 || got.Sites[0].Site != "io_wq_enqueue" || got.Sites[0].Count != 14252 || got.Sites[0].WaitNs != 40_000_000 {
		t.Fatalf("sites: %+v", got.Sites)
	}

	buf.Reset()
	w.Reset(&buf)
	printJSON(w, kernelLocksJSON(&klock.Locks{Reason: "not root"}), 0)
	w.Flush()
	if want := "{\n  \"available\" : false,\n  \"reason\" : \"not root\"\n}"; buf.String() != want {
		t.Fatalf("unavailable: %q, want %q", buf.String(), want)
	}
}

// TestKernelLocksNormal checks the "gofio klock" lines: the totals, the
// wait by subsystem and the five sites waited on most, or one line saying
// why not.
func TestKernelLocksNormal(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeKernelLocksNormal(w, sampleKernelLocks())
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2+KLockTopSites {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{
		"  gofio klock  : contentions=33550 (0.3355/IO), wait=83.50 ms (835.0 ns/IO), spin=4.15% of CPU (5 threads, 2000.00 ms)",
		"  gofio klock  : wait by subsystem: io-wq=83.8% (26948 in 2 sites), io_uring=12.6% (5925 in 2 sites), block=1.2% (10 in 1 sites), other=2.4% (667 in 1 sites)",
		"  gofio klock  : io_wq_enqueue                io-wq    count=14252, wait=40.00 ms (47.9%), avg=2.81 us",
	} {
		if lines[i] != want {
			t.Errorf("line %d:\n%q, want\n%q", i, lines[i], want)
		}
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "  gofio klock  : ") {
			t.Errorf("line %q is not a gofio klock line", l)
		}
	}
	buf.Reset()
	w.Reset(&buf)
	writeKernelLocksNormal(w, &klock.Locks{Reason: "no lock tracepoints"})
	writeKernelLocksNormal(w, nil)
	writeKernelLocksNormal(w, &klock.Locks{Available: true, IOs: 5})
	w.Flush()
	want := "  gofio klock  : unavailable: no lock tracepoints\n" +
		"  gofio klock  : contentions=0 (0.0000/IO), wait=0.00 ms (0.0 ns/IO), spin=0.00% of CPU (0 threads, 0.00 ms)\n"
	if buf.String() != want {
		t.Fatalf("%q, want %q", buf.String(), want)
	}
}

// TestKernelLocksStateAndMerge checks that a job's figures survive its
// saved state (gofio merge, diff) and that group_reporting adds them.
func TestKernelLocksStateAndMerge(t *testing.T) {
	j := &JobResult{Name: "j", KernelLocks: sampleKernelLocks()}
	raw, err := json.Marshal(StateOf(j))
	if err != nil {
		t.Fatal(err)
	}
	var st JobState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	back, err := JobResultFromState(&st, nil, "j", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.KernelLocks, j.KernelLocks) {
		t.Fatalf("state round trip: %+v\nwant %+v", back.KernelLocks, j.KernelLocks)
	}
	m := &JobResult{}
	mergeInto(m, j)
	mergeInto(m, j)
	if l := m.KernelLocks; l == nil || l.Contentions != 2*33550 || l.IOs != 200_000 || len(l.Sites) != 6 {
		t.Fatalf("merged: %+v", m.KernelLocks)
	}
}
