package testvectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/omni-tts/omni/stats"
)

// policyRtol is the relative tolerance of the stats and sched kinds.
const policyRtol = 1e-9

// closeRel reports |got − want| ≤ rtol·|want| (exact when want is 0).
func closeRel(got, want float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= policyRtol*math.Abs(want)
}

// decodeStrict decodes raw into v refusing unknown fields, as a *FieldError
// of field.
func (c *Case) decodeStrict(field string, raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return c.Errorf(field, "%v", err)
	}
	return nil
}

// statsFile is one process's samples in a "stats" case.
type statsFile struct {
	Role     string               `json:"role"`
	PID      int                  `json:"pid"`
	Counters map[string][]float64 `json:"counters"`
}

// statsRow is one expected attribution row.
type statsRow struct {
	Role         string  `json:"role"`
	Counter      string  `json:"counter"`
	ShareOfFrame float64 `json:"share_of_frame"`
}

// runStats runs a "stats" case: every file's samples go through a series in
// order, the per-process summaries are merged by role and compared with
// expect (counts exactly, the rest with rtol 1e-9); expect_attribution, when
// present, is compared row by row against the 80 ms budget, rows of equal
// share in any order.
func runStats(c *Case, _ *Env) error {
	raw, ok := c.Field("files")
	if !ok {
		return c.Decode("files", nil)
	}
	var files []statsFile
	if err := c.decodeStrict("files", raw, &files); err != nil {
		return err
	}
	raw, ok = c.Field("expect")
	if !ok {
		return c.Decode("expect", nil)
	}
	var expect map[string]map[string]stats.Summary
	if err := c.decodeStrict("expect", raw, &expect); err != nil {
		return err
	}
	dumps := make([]stats.Dump, 0, len(files))
	for i, f := range files {
		if f.Role == "" {
			return c.Errorf(fmt.Sprintf("files[%d].role", i), "empty role")
		}
		d := stats.Dump{Role: f.Role, PID: f.PID, Counters: map[string]stats.Summary{}}
		for name, values := range f.Counters {
			var s stats.Series
			for _, v := range values {
				s.Add(v)
			}
			d.Counters[name] = s.Summary()
		}
		dumps = append(dumps, d)
	}
	got := stats.MergeDumps(dumps)
	if err := compareRoles(c, got, expect); err != nil {
		return err
	}
	if raw, ok := c.Field("expect_attribution"); ok {
		var rows []statsRow
		if err := c.decodeStrict("expect_attribution", raw, &rows); err != nil {
			return err
		}
		return compareAttribution(c, stats.Attribution(got, stats.FrameBudgetMS), rows)
	}
	return nil
}

// compareRoles checks merged summaries against the expectation, both ways.
func compareRoles(c *Case, got stats.Roles, want map[string]map[string]stats.Summary) error {
	for _, role := range sortedKeys(want) {
		for _, name := range sortedKeys(want[role]) {
			w := want[role][name]
			field := fmt.Sprintf("expect.%s.%s", role, name)
			g, ok := got[role][name]
			if !ok {
				return c.Errorf(field, "no such counter in the merged result")
			}
			if g.Count != w.Count {
				return c.Errorf(field+".count", "got %d, want %d", g.Count, w.Count)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"sum_ms", g.SumMS, w.SumMS}, {"mean_ms", g.MeanMS, w.MeanMS}, {"p50_ms", g.P50MS, w.P50MS},
				{"p95_ms", g.P95MS, w.P95MS}, {"max_ms", g.MaxMS, w.MaxMS},
			} {
				if !closeRel(f.got, f.want) {
					return c.Errorf(field+"."+f.name, "got %v, want %v", f.got, f.want)
				}
			}
		}
	}
	for role, counters := range got {
		for name := range counters {
			if _, ok := want[role][name]; !ok {
				return c.Errorf("expect", "merged result has %s.%s, the case does not", role, name)
			}
		}
	}
	return nil
}

// compareAttribution checks rows in order; within a run of equal shares the
// (role, counter) pairs may come in any order.
func compareAttribution(c *Case, got []stats.Row, want []statsRow) error {
	if len(got) != len(want) {
		return c.Errorf("expect_attribution", "got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !closeRel(got[i].ShareOfFrame, want[i].ShareOfFrame) {
			return c.Errorf(fmt.Sprintf("expect_attribution[%d].share_of_frame", i), "got %v (%s %s), want %v (%s %s)",
				got[i].ShareOfFrame, got[i].Role, got[i].Counter, want[i].ShareOfFrame, want[i].Role, want[i].Counter)
		}
	}
	for i := 0; i < len(want); {
		j := i + 1
		for j < len(want) && closeRel(want[j].ShareOfFrame, want[i].ShareOfFrame) {
			j++
		}
		g, w := map[string]int{}, map[string]int{}
		for k := i; k < j; k++ {
			g[got[k].Role+"\x00"+got[k].Counter]++
			w[want[k].Role+"\x00"+want[k].Counter]++
		}
		for k, n := range w {
			if g[k] != n {
				return c.Errorf(fmt.Sprintf("expect_attribution[%d]", i), "rows %d..%d (share %v) differ: got %v, want %v",
					i, j-1, want[i].ShareOfFrame, rowNames(got[i:j]), wantNames(want[i:j]))
			}
		}
		i = j
	}
	return nil
}

// rowNames lists "role/counter" of rows.
func rowNames(rows []stats.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Role+"/"+r.Counter)
	}
	return out
}

// wantNames lists "role/counter" of expected rows.
func wantNames(rows []statsRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Role+"/"+r.Counter)
	}
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
