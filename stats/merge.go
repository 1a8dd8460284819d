package stats

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Roles is merged statistics: role → counter → summary.
type Roles map[string]map[string]Summary

// Merged is the result of Merge.
type Merged struct {
	Roles   Roles    // per role, per counter
	Files   []string // dump files folded in, sorted
	Skipped []string // *.json files that could not be read as dumps, with the reason
}

// Merge folds every <dir>/*.json dump (written by omni or the original
// system) into one summary per (role, counter); see MergeDumps. Files that
// are not dumps are skipped and listed in Skipped; temporary files of a dump
// in progress (*.json.tmp) are not looked at.
func Merge(dir string) (Merged, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return Merged{}, fmt.Errorf("stats: list %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return Merged{}, fmt.Errorf("stats: merge: %w", err)
	}
	sort.Strings(paths)
	var m Merged
	var dumps []Dump
	for _, p := range paths {
		d, err := ReadDump(p)
		if err != nil {
			m.Skipped = append(m.Skipped, err.Error())
			continue
		}
		dumps = append(dumps, d)
		m.Files = append(m.Files, p)
	}
	m.Roles = MergeDumps(dumps)
	return m, nil
}

// MergeDumps folds dumps by role: for one (role, counter) seen in several
// dumps, counts and sums add, the mean is recomputed as sum/count, and p50,
// p95 and max take the largest (the worst) of the dumps.
func MergeDumps(dumps []Dump) Roles {
	out := Roles{}
	for _, d := range dumps {
		bucket := out[d.Role]
		if bucket == nil {
			bucket = map[string]Summary{}
			out[d.Role] = bucket
		}
		for name, s := range d.Counters {
			cur, ok := bucket[name]
			if !ok {
				bucket[name] = s
				continue
			}
			bucket[name] = combine(cur, s)
		}
	}
	return out
}

// combine merges two summaries of the same counter from different processes.
func combine(a, b Summary) Summary {
	out := Summary{
		Count: a.Count + b.Count,
		SumMS: a.SumMS + b.SumMS,
		P50MS: max(a.P50MS, b.P50MS),
		P95MS: max(a.P95MS, b.P95MS),
		MaxMS: max(a.MaxMS, b.MaxMS),
	}
	if out.Count != 0 {
		out.MeanMS = out.SumMS / float64(out.Count)
	}
	return out
}
