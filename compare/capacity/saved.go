package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/gofio/gofio/report"
)

// ReadSaved reads the capacity a run saved with --output-format=json
// (report.CapacityJSONKey; the first JSON object in the file, as
// compare.ReadSaved reads it), and the SHA-256 of its jobs (the
// gofio_run's jobs_hash, "" when the file has none).
func ReadSaved(path string) (*report.Capacity, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("read saved run: %w", err)
	}
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return nil, "", fmt.Errorf("%s: no JSON object in it; save runs with --output-format=json", path)
	}
	var doc struct {
		Run *struct {
			JobsHash string `json:"jobs_hash"`
		} `json:"gofio_run"`
		Capacity *report.Capacity `json:"gofio_capacity"`
	}
	if err := json.NewDecoder(bytes.NewReader(data[start:])).Decode(&doc); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if doc.Capacity == nil {
		return nil, "", fmt.Errorf("%s: no %q in it: save the run with --slo and --output-format=json", path, report.CapacityJSONKey)
	}
	hash := ""
	if doc.Run != nil {
		hash = doc.Run.JobsHash
	}
	return doc.Capacity, hash, nil
}
