package stats

import (
	"math"
	"testing"
)

// refPercentile is the percentile rule written out plainly: insertion sort,
// then index min(n-1, round-half-even((n-1)*p)).
func refPercentile(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s) == 0 {
		return 0
	}
	x := float64(len(s)-1) * p
	i := int(math.Floor(x))
	if frac := x - float64(i); frac > 0.5 || (frac == 0.5 && i%2 == 1) {
		i++
	}
	if i > len(s)-1 {
		i = len(s) - 1
	}
	return s[i]
}

func TestSeriesWorkedNumbers(t *testing.T) {
	// tests/edge/test_step_stats.py: 1, 2, 3, 4, 100.
	var s Series
	for _, v := range []float64{1, 2, 3, 4, 100} {
		s.Add(v)
	}
	got := s.Summary()
	want := Summary{Count: 5, SumMS: 110, MeanMS: 22, P50MS: 3, P95MS: 100, MaxMS: 100}
	if got != want {
		t.Fatalf("Summary(1,2,3,4,100) = %+v, want %+v", got, want)
	}
}

func TestPercentileRoundsHalfToEven(t *testing.T) {
	// n = 6, p = 0.5: (n-1)p = 2.5 rounds to 2 (Python's round), not 3.
	v := []float64{10, 20, 30, 40, 50, 60}
	if got := Percentile(v, 0.5); got != 30 {
		t.Errorf("Percentile(6 values, 0.5) = %v, want 30 (index 2)", got)
	}
	// n = 4: 1.5 rounds to 2.
	if got := Percentile(v[:4], 0.5); got != 30 {
		t.Errorf("Percentile(4 values, 0.5) = %v, want 30 (index 2)", got)
	}
	if got := Percentile(nil, 0.95); got != 0 {
		t.Errorf("Percentile(empty) = %v, want 0", got)
	}
	for n := 1; n <= 60; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((i*37)%n) + 0.25*float64(i%3)
		}
		var s Series
		for _, x := range v {
			s.Add(x)
		}
		sum := s.Summary()
		if w := refPercentile(v, 0.5); sum.P50MS != w {
			t.Errorf("n=%d p50 = %v, want %v", n, sum.P50MS, w)
		}
		if w := refPercentile(v, 0.95); sum.P95MS != w {
			t.Errorf("n=%d p95 = %v, want %v", n, sum.P95MS, w)
		}
	}
}

func TestSeriesMaxStartsAtZero(t *testing.T) {
	// The original's max starts at 0.0: negative-only series report 0.
	var s Series
	s.Add(-3)
	s.Add(-1)
	if got := s.Summary(); got.MaxMS != 0 || got.SumMS != -4 || got.Count != 2 {
		t.Errorf("Summary(-3,-1) = %+v, want max 0, sum -4, count 2", got)
	}
}

func TestSeriesDropsNonFinite(t *testing.T) {
	var s Series
	s.Add(math.NaN())
	s.Add(math.Inf(1))
	s.Add(2)
	if got := s.Summary(); got.Count != 1 || got.SumMS != 2 {
		t.Errorf("Summary(NaN, +Inf, 2) = %+v, want count 1 sum 2", got)
	}
}

func TestSeriesReservoirOverwrite(t *testing.T) {
	// Reference: a plain list that appends up to 20000 samples and then
	// overwrites slot (count*7919) % 20000, count counting the new sample.
	const extra = 5003
	ref := []float64{}
	var s Series
	var count int
	sum, maxv := 0.0, 0.0
	for i := 0; i < MaxSamples+extra; i++ {
		v := float64((i*7+3)%100003) / 8
		count++
		sum += v
		maxv = math.Max(maxv, v)
		if len(ref) < 20000 {
			ref = append(ref, v)
		} else {
			ref[(count*7919)%20000] = v
		}
		s.Add(v)
	}
	if len(s.samples) != MaxSamples {
		t.Fatalf("reservoir holds %d samples, want %d", len(s.samples), MaxSamples)
	}
	for i := range ref {
		if s.samples[i] != ref[i] {
			t.Fatalf("reservoir slot %d = %v, want %v", i, s.samples[i], ref[i])
		}
	}
	got := s.Summary()
	if got.Count != int64(count) || got.SumMS != sum || got.MaxMS != maxv {
		t.Errorf("Summary = %+v, want count %d sum %v max %v", got, count, sum, maxv)
	}
	if w := refPercentile(ref, 0.95); got.P95MS != w {
		t.Errorf("p95 = %v, want %v (from the reservoir)", got.P95MS, w)
	}
}
