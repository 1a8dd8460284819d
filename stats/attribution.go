package stats

import (
	"fmt"
	"sort"
	"strings"
)

// Row is one line of an attribution table: a (role, counter) and its mean
// as a share of the frame budget.
type Row struct {
	Role         string  `json:"role"`
	Counter      string  `json:"counter"`
	Count        int64   `json:"count"`
	MeanMS       float64 `json:"mean_ms"`
	P95MS        float64 `json:"p95_ms"`
	ShareOfFrame float64 `json:"share_of_frame"` // mean_ms / budget (0 when the budget is 0)
}

// Attribution returns one row per (role, counter) with share_of_frame =
// mean_ms / budgetMS, sorted by share, largest first; equal shares are
// ordered by role, then counter.
func Attribution(roles Roles, budgetMS float64) []Row {
	var rows []Row
	for role, counters := range roles {
		for name, s := range counters {
			r := Row{Role: role, Counter: name, Count: s.Count, MeanMS: s.MeanMS, P95MS: s.P95MS}
			if budgetMS != 0 {
				r.ShareOfFrame = s.MeanMS / budgetMS
			}
			rows = append(rows, r)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.ShareOfFrame != b.ShareOfFrame {
			return a.ShareOfFrame > b.ShareOfFrame
		}
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		return a.Counter < b.Counter
	})
	return rows
}

// FormatTable renders rows as a markdown table whose last column is the
// share of the budget (in percent, one decimal); means and p95 have two
// decimals.
func FormatTable(rows []Row, budgetMS float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| role | counter | n | mean ms | p95 ms | share of %s ms |\n", trimFloat(budgetMS))
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %.2f | %.2f | %.1f%% |\n",
			r.Role, r.Counter, r.Count, r.MeanMS, r.P95MS, 100*r.ShareOfFrame)
	}
	return b.String()
}

// trimFloat formats f without trailing zeros (80 → "80", 12.5 → "12.5").
func trimFloat(f float64) string {
	return fmt.Sprintf("%g", f)
}
