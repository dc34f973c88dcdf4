// Package fleet merges the JSON results of many hosts' gofio runs into one
// result in the shape of fio's client mode (fio --client): one entry per
// host and job, each with its host name, and an "All clients" entry that
// sums them all as fio's sum_thread_stats does, histograms bin by bin, so
// that the merged percentiles are exact. It reads gofio's own JSON, whose
// jobs carry their exact state (report.JobState); the writers are in
// package report (WriteClientJSON, WriteClientNormal).
package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Host is one host's result as read from its JSON file.
type Host struct {
	File   string // where it was read from, for messages
	Name   string // gofio_run.host
	RunID  string // gofio_run.run_id
	Result *report.Result
	// Jobs are the jobs' names and options (global first), as the file
	// lists them; Same compares them.
	Jobs []JobDesc
}

// JobDesc is one job as a result file names it.
type JobDesc struct {
	Name    string
	Group   int
	Options []jobfile.Option
}

// fileJSON is the part of a gofio JSON result merge reads.
type fileJSON struct {
	Version     string          `json:"fio version"`
	TimestampMs int64           `json:"timestamp_ms"`
	Timestamp   int64           `json:"timestamp"`
	Global      json.RawMessage `json:"global options"`
	Jobs        []struct {
		Name    string          `json:"jobname"`
		Group   int             `json:"groupid"`
		Error   int             `json:"error"`
		Options json.RawMessage `json:"job options"`
		Gofio   struct {
			State     *report.JobState `json:"state"`
			StartAtNs int64            `json:"start_at_ns"`
		} `json:"gofio"`
	} `json:"jobs"`
	Disks []struct {
		Name        string  `json:"name"`
		ReadIOs     uint64  `json:"read_ios"`
		WriteIOs    uint64  `json:"write_ios"`
		ReadSect    uint64  `json:"read_sectors"`
		WriteSect   uint64  `json:"write_sectors"`
		ReadMerges  uint64  `json:"read_merges"`
		WriteMerges uint64  `json:"write_merges"`
		ReadTicks   uint64  `json:"read_ticks"`
		WriteTicks  uint64  `json:"write_ticks"`
		InQueue     uint64  `json:"in_queue"`
		Util        float64 `json:"util"`
	} `json:"disk_util"`
	ClientStats json.RawMessage `json:"client_stats"`
	Run         *report.RunInfo `json:"gofio_run"`
}

// Read reads one host's gofio JSON result (--output-format=json or json+).
// name is the file name, for messages.
func Read(name string, r io.Reader) (*Host, error) {
	var f fileJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a gofio JSON result: %w", name, err)
	}
	switch {
	case f.ClientStats != nil:
		return nil, fmt.Errorf("%s: already a merged (client_stats) result; merge the hosts' own files", name)
	case f.Run == nil:
		return nil, fmt.Errorf("%s: no gofio_run (host, run id): written by fio or an older gofio; merge reads gofio's JSON", name)
	case len(f.Jobs) == 0:
		return nil, fmt.Errorf("%s: no jobs", name)
	}
	global, err := options(f.Global)
	if err != nil {
		return nil, fmt.Errorf("%s: global options: %w", name, err)
	}
	h := &Host{File: name, Name: f.Run.Host, RunID: f.Run.RunID}
	res := &report.Result{Version: f.Version, Start: time.UnixMilli(f.TimestampMs), GlobalOptions: global, Run: f.Run}
	if f.TimestampMs == 0 {
		res.Start = time.Unix(f.Timestamp, 0)
	}
	for _, j := range f.Jobs {
		if j.Gofio.State == nil {
			return nil, fmt.Errorf("%s: job %s has no gofio.state: written by an older gofio, whose results cannot be merged exactly", name, j.Name)
		}
		own, err := options(j.Options)
		if err != nil {
			return nil, fmt.Errorf("%s: job %s: job options: %w", name, j.Name, err)
		}
		job := rebuildJob(j.Name, global, own)
		jr, err := report.JobResultFromState(j.Gofio.State, job, j.Name, j.Group, j.Error)
		if err != nil {
			return nil, fmt.Errorf("%s: job %s: %w", name, j.Name, err)
		}
		res.Jobs = append(res.Jobs, jr)
		if j.Gofio.StartAtNs != 0 {
			res.StartAt = time.Unix(0, j.Gofio.StartAtNs)
		}
		h.Jobs = append(h.Jobs, JobDesc{Name: j.Name, Group: j.Group, Options: append(append([]jobfile.Option(nil), global...), own...)})
	}
	for _, d := range f.Disks {
		res.Disks = append(res.Disks, report.DiskStats{Name: d.Name, ReadIOs: d.ReadIOs, WriteIOs: d.WriteIOs,
			ReadSectors: d.ReadSect, WriteSectors: d.WriteSect,
			ReadMerges: d.ReadMerges, WriteMerges: d.WriteMerges, ReadTicks: d.ReadTicks, WriteTicks: d.WriteTicks,
			InQueue: d.InQueue, Util: d.Util})
	}
	var end time.Time
	for _, jr := range res.Jobs {
		if e := jr.Start.Add(jr.Elapsed); e.After(end) {
			end = e
		}
	}
	res.End = end
	h.Result = res
	return h, nil
}

// options decodes a JSON object of option strings in its order.
func options(raw json.RawMessage) ([]jobfile.Option, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytesReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("want an object")
	}
	var out []jobfile.Option
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // a number
		}
		out = append(out, jobfile.Option{Name: k.(string), Value: s, HasValue: true})
	}
	return out, nil
}

// rebuildJob parses the job's options again, as a command line, so that the
// report writers see the same percentile list, units and flags as on the
// host. Options that do not parse here (a path only the host has) fall
// back to fio's defaults for everything but the option list.
func rebuildJob(name string, global, own []jobfile.Option) *jobfile.Job {
	var argv []string
	for _, o := range global {
		argv = append(argv, "--"+o.Name+"="+o.Value)
	}
	argv = append(argv, "--name="+name)
	for _, o := range own {
		if o.Name != "name" {
			argv = append(argv, "--"+o.Name+"="+o.Value)
		}
	}
	all := append(append([]jobfile.Option(nil), global...), own...)
	host := jobfile.Host{NCPUs: 1, PageSize: 4096, MBMemory: 1024}
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: argv, Host: &host})
	if err != nil || len(jobs) == 0 {
		jobs, _ = jobfile.Parse(jobfile.Input{CmdLine: []string{"--name=" + name}, Host: &host})
		if len(jobs) == 0 {
			return nil
		}
	}
	j := jobs[0]
	j.Options = all
	j.NumGlobalOptions = len(global)
	return j
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
