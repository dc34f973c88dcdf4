package report

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// AllClients is the job name of the aggregate entry of a client-mode
// result, as fio's client names it and fio-plot's importer looks for it.
const AllClients = "All clients"

// ClientResult is a merged fleet result in the shape of fio's client mode
// (gofio merge): every host's results, and their sum.
type ClientResult struct {
	Version string    // the merging gofio's version, as fio's client prints its own
	Time    time.Time // when the merge was made
	RunID   string
	// GlobalOptions are the options every job of every host shares with
	// the same value, printed as "global options" (fio-plot reads rw,
	// iodepth and numjobs there).
	GlobalOptions []jobfile.Option
	Clients       []Client
	// All is the "All clients" sum of every reported job of every host
	// (fio's sum_thread_stats); nil when there is only one job in all.
	All *JobResult
	// AllGroup sums the hosts' group statistics (fio's sum_group_stats),
	// each host's group once.
	AllGroup GroupStats
}

// Client is one host of a ClientResult.
type Client struct {
	Host   string
	File   string
	Result *Result
}

// SumClients fills All and AllGroup from Clients: every reported job of
// every host summed as fio's client sums its clients' thread_stat, and the
// hosts' groups as sum_group_stats does.
func (c *ClientResult) SumClients() {
	var all []*JobResult
	first := true
	for _, cl := range c.Clients {
		rep := Reported(cl.Result)
		all = append(all, rep...)
		for _, g := range Groups(rep) {
			sumGroupStats(&c.AllGroup, &g, first)
			first = false
		}
	}
	if len(all) < 2 {
		c.All = nil
		return
	}
	sum := &JobResult{Name: AllClients, GroupID: all[len(all)-1].GroupID, Job: all[0].Job, Policy: all[0].Policy, Reap: all[0].Reap}
	for _, j := range all {
		mergeInto(sum, j)
	}
	sum.Job = clientJob(all[0].Job)
	c.All = sum
}

// clientJob is the job the "All clients" entry is reported with: the first
// job's report settings (percentiles, units), no options of its own.
func clientJob(j *jobfile.Job) *jobfile.Job {
	if j == nil {
		return nil
	}
	cj := *j
	cj.Options = nil
	cj.NumGlobalOptions = 0
	cj.GroupReporting = false
	cj.Description = ""
	return &cj
}

// sumGroupStats adds src to dst as fio's sum_group_stats: the longest and
// shortest runs and the extreme bandwidths, bytes and aggregate bandwidth
// added up.
func sumGroupStats(dst, src *GroupStats, first bool) {
	if first {
		*dst = *src
		return
	}
	for d := range dst.IOBytes {
		if dst.MaxRun[d] < src.MaxRun[d] {
			dst.MaxRun[d] = src.MaxRun[d]
		}
		if dst.MinRun[d] == 0 || (src.MinRun[d] != 0 && src.MinRun[d] < dst.MinRun[d]) {
			dst.MinRun[d] = src.MinRun[d]
		}
		if dst.MaxBW[d] < src.MaxBW[d] {
			dst.MaxBW[d] = src.MaxBW[d]
		}
		if dst.MinBW[d] == 0 || (src.MinBW[d] != 0 && src.MinBW[d] < dst.MinBW[d]) {
			dst.MinBW[d] = src.MinBW[d]
		}
		dst.IOBytes[d] += src.IOBytes[d]
		dst.Agg[d] += src.Agg[d]
	}
}

// WriteClientJSON writes c as fio's client mode writes JSON: "client_stats"
// holds every host's jobs, each with "hostname" and "port", then the "All
// clients" entry; "disk_util" holds every host's disks, each with its
// "hostname". gofio adds "gofio_merge": the run id and, per host, the
// file it came from and its start skew.
func WriteClientJSON(w io.Writer, c *ClientResult, plus bool) error {
	root := &jsonObject{}
	root.addString("fio version", c.Version)
	root.addSInt("timestamp", c.Time.Unix())
	root.addSInt("timestamp_ms", c.Time.UnixMilli())
	root.addString("time", c.Time.Format(ctimeLayout))
	g := optionsObject(c.GlobalOptions, "")
	if g == nil {
		g = &jsonObject{}
	}
	root.add("global options", g)
	stats := jsonArray{}
	disks := jsonArray{}
	hosts := jsonArray{}
	for _, cl := range c.Clients {
		rep := Reported(cl.Result)
		groups := Groups(rep)
		for _, j := range rep {
			o := jobJSON(cl.Result, j, &groups[j.GroupID], plus)
			o.addString("hostname", cl.Host)
			o.addSInt("port", 0)
			stats = append(stats, o)
		}
		for _, d := range cl.Result.Disks {
			o := diskJSON(cl.Result.Release, d)
			o.addString("hostname", cl.Host)
			o.addSInt("port", 0)
			disks = append(disks, o)
		}
		h := &jsonObject{}
		h.addString("hostname", cl.Host)
		h.addString("file", cl.File)
		if first := firstIO(rep); !first.IsZero() {
			h.addSInt("first_io_ns", first.UnixNano())
			if !cl.Result.StartAt.IsZero() {
				h.addSInt("start_skew_ns", first.Sub(cl.Result.StartAt).Nanoseconds())
			}
		}
		hosts = append(hosts, h)
	}
	if c.All != nil {
		o := jobJSON(c.allResult(), c.All, &c.AllGroup, plus)
		o.addString("hostname", AllClients)
		o.addSInt("port", 0)
		stats = append(stats, o)
	}
	root.add("client_stats", stats)
	root.add("disk_util", disks)
	m := &jsonObject{}
	m.addString("run_id", c.RunID)
	m.add("clients", hosts)
	root.add("gofio_merge", m)
	bw := bufio.NewWriter(w)
	printJSON(bw, root, 0)
	bw.WriteString("\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write merged json: %w", err)
	}
	return nil
}

// firstIO is the earliest first I/O of the jobs, zero when none has one.
func firstIO(jobs []*JobResult) time.Time {
	var t time.Time
	for _, j := range jobs {
		if !j.FirstIO.IsZero() && (t.IsZero() || j.FirstIO.Before(t)) {
			t = j.FirstIO
		}
	}
	return t
}

// WriteClientNormal writes c as fio's client mode prints it: each host's
// normal output (its jobs, groups and disks) under a line naming the host
// (gofio's addition: fio leaves the blocks unnamed), then the "All
// clients" block.
func WriteClientNormal(w io.Writer, c *ClientResult) error {
	for _, cl := range c.Clients {
		if _, err := fmt.Fprintf(w, "\n<%s> %s (run id %s)\n", cl.Host, cl.File, c.RunID); err != nil {
			return fmt.Errorf("write merged report: %w", err)
		}
		if err := WriteNormal(w, cl.Result); err != nil {
			return err
		}
	}
	if c.All == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "\n")
	writeJobNormal(bw, c.allResult(), c.All, &c.AllGroup)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write merged report: %w", err)
	}
	return nil
}

// allResult is the Result the "All clients" entry is printed in: its time
// is the merge's.
func (c *ClientResult) allResult() *Result {
	return &Result{Jobs: []*JobResult{c.All}, Start: c.Time, End: c.Time, Version: c.Version}
}
