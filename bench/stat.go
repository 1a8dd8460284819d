package bench

import "slices"

// Median returns the median of v (the mean of the two middle values when
// len(v) is even), or 0 when v is empty. v is not modified.
func Median(v []float64) float64 { return quantileOf(v, 0.5) }

// quantileOf is Quantile of an unsorted v (not modified); 0 when v is empty.
func quantileOf(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return Quantile(sorted(v), q)
}

// Quantile is the q-quantile of the ascending, non-empty s, interpolated
// linearly between order statistics (numpy's default): position
// q·(len−1), so Quantile(s, 0.5) is the median.
func Quantile(s []float64, q float64) float64 {
	p := q * float64(len(s)-1)
	i := int(p)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	f := p - float64(i)
	return s[i]*(1-f) + s[i+1]*f
}

// sorted returns an ascending copy of v.
func sorted(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}
