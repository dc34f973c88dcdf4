package compare

import "github.com/gofio/gofio/report"

// runRows returns the rows of a saved run as the series across runs key
// them (gofio drift, gofio history): the row's value, with the side's name
// appended for a run made with --compare, in the run's order; and for each
// the median over its repeats of the gate metric, the run's one figure for
// that row.
func runRows(r *Saved, gateMetric string) (keys []string, meds map[string]float64) {
	meds = map[string]float64{}
	c := r.Comparison
	for _, row := range c.Rows {
		for _, side := range []struct {
			name string
			s    *report.ComparisonSide
		}{{c.New.Name, &row.New}, {c.Old.Name, &row.Old}} {
			if !side.s.Ran() {
				continue
			}
			key := row.Value
			if c.Compared {
				key += "," + side.name
			}
			if _, ok := meds[key]; !ok {
				keys = append(keys, key)
			}
			meds[key] = median(sorted(side.s.Values(gateMetric)))
		}
	}
	return keys, meds
}
