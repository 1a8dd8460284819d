package sched

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ModelShare is the default share of the CPUs given to the model stage
// (talker and code predictor); the codec stage gets the rest.
const ModelShare = 2.0 / 3.0

// SplitCPUs splits cpus between the model stage and the codec stage: the
// model gets n0 = max(1, round(len × share)) (rounding half to even), capped
// at len − 1 when there are two or more; the codec gets the rest, or shares
// the last CPU when nothing is left. No CPUs → nil, nil.
func SplitCPUs(cpus []int, share float64) (model, codec []int) {
	n := len(cpus)
	if n == 0 {
		return nil, nil
	}
	n0 := max(1, int(math.RoundToEven(float64(n)*share)))
	if n > 1 {
		n0 = min(n0, n-1)
	}
	n0 = min(n0, n)
	model = append([]int(nil), cpus[:n0]...)
	codec = append([]int(nil), cpus[n0:]...)
	if len(codec) == 0 {
		codec = []int{cpus[n-1]}
	}
	return model, codec
}

// SplitThreads is SplitCPUs on n CPUs, as thread counts.
func SplitThreads(n int, share float64) (model, codec int) {
	cpus := make([]int, max(n, 0))
	for i := range cpus {
		cpus[i] = i
	}
	m, c := SplitCPUs(cpus, share)
	return len(m), len(c)
}

// PlanThreadSweep lays out n CPUs from first for a thread sweep: the model
// stage gets round(n × share) (at least 1, at most n − 1) consecutive CPUs,
// the codec the rest, disjoint. It needs n ≥ 2.
func PlanThreadSweep(n, first int, share float64) (model, codec []int, err error) {
	if n < 2 {
		return nil, nil, fmt.Errorf("sched: thread sweep over %d CPUs: need at least 2 (one per stage)", n)
	}
	if !(share > 0 && share < 1) {
		return nil, nil, fmt.Errorf("sched: thread sweep share %v outside (0, 1)", share)
	}
	n0 := min(max(int(math.RoundToEven(float64(n)*share)), 1), n-1)
	for i := 0; i < n; i++ {
		if i < n0 {
			model = append(model, first+i)
		} else {
			codec = append(codec, first+i)
		}
	}
	return model, codec, nil
}

// FormatCPURanges writes CPU ids as compressed ranges: 0,2,3,4 → "0,2-4".
func FormatCPURanges(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ParseCPURanges reads "0-3,6" back into CPU ids.
func ParseCPURanges(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(strings.TrimSpace(s), ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("sched: cpu list %q: %q is not a CPU id", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("sched: cpu list %q: bad range %q", s, p)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
