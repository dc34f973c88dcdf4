// Command fleet checks a simulated fleet run (bench/fleet/run.sh): the
// hosts' JSON results and their gofio merge. It prints each host's start
// skew, checks that the merged total_ios is the hosts' sum and that the
// merged clat percentiles equal those of the hosts' pooled histograms,
// and that the merged file meets fio-plot's import rule (client_stats
// with an "All clients" entry, rw/iodepth/numjobs in global options).
//
//	go run ./bench/fleet merged.json host1.json host2.json ...
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/gofio/gofio/report"
)

type hostFile struct {
	Run  report.RunInfo `json:"gofio_run"`
	Jobs []struct {
		Read struct {
			TotalIOs uint64 `json:"total_ios"`
		} `json:"read"`
		Gofio struct {
			State     report.JobState `json:"state"`
			SkewNs    int64           `json:"start_skew_ns"`
			FirstIONs int64           `json:"first_io_ns"`
		} `json:"gofio"`
	} `json:"jobs"`
}

type mergedFile struct {
	Global map[string]string `json:"global options"`
	Stats  []struct {
		Name string `json:"jobname"`
		Host string `json:"hostname"`
		Read struct {
			TotalIOs uint64 `json:"total_ios"`
			Clat     struct {
				Percentile map[string]uint64 `json:"percentile"`
			} `json:"clat_ns"`
		} `json:"read"`
	} `json:"client_stats"`
}

func load(name string, v any) {
	b, err := os.ReadFile(name)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fleet: %s: %v\n", name, err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: fleet merged.json host.json...")
		os.Exit(1)
	}
	var m mergedFile
	load(os.Args[1], &m)
	var pooled report.Hist
	var sum, n uint64
	var firsts []int64
	ok := true
	for _, name := range os.Args[2:] {
		var h hostFile
		load(name, &h)
		for _, j := range h.Jobs {
			sum += j.Read.TotalIOs
			st := j.Gofio.State.Dirs[0].Clat
			for k, c := range st.Bins {
				i, _ := strconv.Atoi(k)
				pooled[i] += c
			}
			n += st.N
			firsts = append(firsts, j.Gofio.FirstIONs)
			fmt.Printf("%-10s run_id=%s first_io_ns=%d start_skew=%.3f ms total_ios=%d\n",
				h.Run.Host, h.Run.RunID, j.Gofio.FirstIONs, float64(j.Gofio.SkewNs)/1e6, j.Read.TotalIOs)
		}
	}
	sort.Slice(firsts, func(a, b int) bool { return firsts[a] < firsts[b] })
	fmt.Printf("spread of first I/O across hosts: %.3f ms\n", float64(firsts[len(firsts)-1]-firsts[0])/1e6)
	all := m.Stats[len(m.Stats)-1]
	if all.Name != report.AllClients {
		fmt.Println("FAIL: last client_stats entry is", all.Name)
		ok = false
	}
	fmt.Printf("merged total_ios=%d, sum of hosts=%d: %v\n", all.Read.TotalIOs, sum, all.Read.TotalIOs == sum)
	ok = ok && all.Read.TotalIOs == sum
	var keys []string
	for k := range all.Read.Clat.Percentile {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		x, _ := strconv.ParseFloat(keys[a], 64)
		y, _ := strconv.ParseFloat(keys[b], 64)
		return x < y
	})
	var plist []float64
	for _, k := range keys {
		p, _ := strconv.ParseFloat(k, 64)
		plist = append(plist, p)
	}
	want, _, _ := report.Percentiles(&pooled, n, plist)
	same := 0
	for i, k := range keys {
		if all.Read.Clat.Percentile[k] == want[i] {
			same++
		} else {
			fmt.Printf("FAIL: p%s merged %d, pooled %d\n", k, all.Read.Clat.Percentile[k], want[i])
			ok = false
		}
	}
	fmt.Printf("merged clat percentiles equal to the pooled histogram's: %d of %d (p50=%d p99=%d p99.9=%d ns)\n",
		same, len(keys), all.Read.Clat.Percentile["50.000000"], all.Read.Clat.Percentile["99.000000"], all.Read.Clat.Percentile["99.900000"])
	_, rw := m.Global["rw"]
	_, depth := m.Global["iodepth"]
	_, nj := m.Global["numjobs"]
	fmt.Printf("fio-plot import rule: client_stats + All clients + global rw/iodepth/numjobs: %v\n", rw && depth && nj && all.Name == report.AllClients)
	ok = ok && rw && depth && nj
	if !ok {
		os.Exit(1)
	}
}
