package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Sample is what one run of either tool measured, summed over its jobs and
// data directions.
type Sample struct {
	Version    string  // "fio version" of the JSON
	IOPS       float64 // read+write+trim iops
	BWBytes    float64 // read+write+trim bw_bytes (B/s)
	LatMeanNs  float64 // lat_ns mean (clat_ns where lat is off), weighted by N
	CPUPerIONs float64 // (usr+sys)% * job_runtime / total_ios, in ns
	TotalIOs   int64
	DropIOs    int64
	ShortIOs   int64
	Errors     []int // non-zero job error values
	// Extras holds each job's "gofio" object, when the tool wrote one.
	Extras []json.RawMessage
	// ReapAll says a job's "gofio" object reports tw_reap=all: it
	// harvested every CQE between task-work items instead of reaping as
	// fio does, so its latency is not fio's kind.
	ReapAll bool
}

// fioStat is one {min,max,mean,stddev,N} object of fio's JSON.
type fioStat struct {
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	N      int64   `json:"N"`
}

// fioDir is one data direction of a job in fio's JSON.
type fioDir struct {
	IOBytes  int64   `json:"io_bytes"`
	BWBytes  int64   `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	Runtime  int64   `json:"runtime"`
	TotalIOs int64   `json:"total_ios"`
	ShortIOs int64   `json:"short_ios"`
	DropIOs  int64   `json:"drop_ios"`
	Clat     fioStat `json:"clat_ns"`
	Lat      fioStat `json:"lat_ns"`
}

// fioJob is one entry of fio's "jobs" array, reduced to what the harness
// reads.
type fioJob struct {
	Name       string          `json:"jobname"`
	Error      int             `json:"error"`
	Read       fioDir          `json:"read"`
	Write      fioDir          `json:"write"`
	Trim       fioDir          `json:"trim"`
	JobRuntime int64           `json:"job_runtime"`
	UsrCPU     float64         `json:"usr_cpu"`
	SysCPU     float64         `json:"sys_cpu"`
	Gofio      json.RawMessage `json:"gofio"`
}

// fioOutput is the top level of fio's JSON output.
type fioOutput struct {
	Version string   `json:"fio version"`
	Jobs    []fioJob `json:"jobs"`
}

// ParseSample reads one fio-schema JSON document. Anything printed before
// the document's opening brace (fio writes some notices to stdout) is
// skipped.
func ParseSample(out []byte) (Sample, error) {
	start := bytes.IndexByte(out, '{')
	if start < 0 {
		return Sample{}, errors.New("no json object in output")
	}
	var doc fioOutput
	dec := json.NewDecoder(bytes.NewReader(out[start:]))
	if err := dec.Decode(&doc); err != nil {
		return Sample{}, fmt.Errorf("decode json: %w", err)
	}
	if len(doc.Jobs) == 0 {
		return Sample{}, errors.New("json has no jobs")
	}
	s := Sample{Version: doc.Version}
	var latSum float64
	var latN int64
	var cpuNs float64
	for _, j := range doc.Jobs {
		if j.Error != 0 {
			s.Errors = append(s.Errors, j.Error)
		}
		if len(j.Gofio) > 0 {
			s.Extras = append(s.Extras, j.Gofio)
			var x struct {
				Reap string `json:"reap"`
			}
			if json.Unmarshal(j.Gofio, &x) == nil && x.Reap == "all" {
				s.ReapAll = true
			}
		}
		for _, d := range []fioDir{j.Read, j.Write, j.Trim} {
			s.IOPS += d.IOPS
			s.BWBytes += float64(d.BWBytes)
			s.TotalIOs += d.TotalIOs
			s.DropIOs += d.DropIOs
			s.ShortIOs += d.ShortIOs
			lat := d.Lat
			if lat.N == 0 {
				lat = d.Clat
			}
			latSum += lat.Mean * float64(lat.N)
			latN += lat.N
		}
		// usr_cpu and sys_cpu are percent of one CPU over job_runtime ms.
		cpuNs += (j.UsrCPU + j.SysCPU) / 100 * float64(j.JobRuntime) * 1e6
	}
	if latN > 0 {
		s.LatMeanNs = latSum / float64(latN)
	}
	if s.TotalIOs > 0 {
		s.CPUPerIONs = cpuNs / float64(s.TotalIOs)
	}
	return s, nil
}
