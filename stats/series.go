package stats

import (
	"math"
	"slices"
)

// MaxSamples is the size of a series' reservoir: beyond it, a new sample
// overwrites slot (count·7919) mod MaxSamples, count including the new one.
const MaxSamples = 20000

// reservoirStride is the multiplier of the overwrite rule.
const reservoirStride = 7919

// Summary is one counter's statistics in the dump layout. Percentiles come
// from the reservoir; count, sum and max cover every sample.
type Summary struct {
	Count  int64   `json:"count"`
	SumMS  float64 `json:"sum_ms"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Series accumulates the samples of one counter. It is not safe for
// concurrent use (a Counter wraps it with a lock). The zero Series is empty.
type Series struct {
	count   int64
	sum     float64
	max     float64 // starts at 0, as the original's does
	samples []float64
}

// Add records one sample. Non-finite values are dropped: they cannot be
// written as JSON.
func (s *Series) Add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	s.count++
	s.sum += v
	if v > s.max {
		s.max = v
	}
	if len(s.samples) < MaxSamples {
		s.samples = append(s.samples, v)
		return
	}
	s.samples[(s.count*reservoirStride)%MaxSamples] = v
}

// Count returns the number of samples recorded.
func (s *Series) Count() int64 { return s.count }

// Summary computes the series' summary. It sorts a copy of the reservoir.
func (s *Series) Summary() Summary {
	return summarize(s.count, s.sum, s.max, slices.Clone(s.samples))
}

// summarize builds a Summary, sorting sample in place.
func summarize(count int64, sum, max float64, sample []float64) Summary {
	slices.Sort(sample)
	out := Summary{Count: count, SumMS: sum, MaxMS: max}
	if count > 0 {
		out.MeanMS = sum / float64(count)
	}
	out.P50MS = Percentile(sample, 0.5)
	out.P95MS = Percentile(sample, 0.95)
	return out
}

// Percentile returns sorted[min(n−1, round((n−1)·p))] with rounding half to
// even (Python's round), or 0 for an empty slice. sorted must be ascending.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	i := int(math.RoundToEven(float64(n-1) * p))
	if i > n-1 {
		i = n - 1
	}
	if i < 0 {
		i = 0
	}
	return sorted[i]
}
