package sampler

import (
	"math"
	"slices"
)

// applyTopP is vLLM's top-p on one row restricted to its survivors surv
// (ascending indices; every other value is -inf and has probability 0):
// sort ascending (ties by ascending index, as a stable sort), Q = softmax,
// C = cumsum(Q) accumulated in float64 and rounded to float32 at each prefix
// (torch's CPU cumsum), drop C ≤ 1 − p except the largest token. Dropped
// values become -inf; the survivors left are returned, still ascending.
func (s *Sampler) applyTopP(x []float32, surv []int32, max, topP float32) []int32 {
	n := len(surv)
	if n <= 1 {
		return surv
	}
	e := s.e
	var sum float64
	for _, id := range surv {
		ei := exp32(x[id] - max)
		e[id] = ei
		sum += float64(ei)
	}
	rinv := 1 / float32(sum)
	keys := s.keys[:n]
	for j, id := range surv {
		keys[j] = uint64(sortable(x[id]))<<32 | uint64(uint32(id))
	}
	slices.Sort(keys)
	limit := 1 - topP
	var cum float64
	drop := 0
	for j := 0; j < n-1; j++ {
		id := int32(uint32(keys[j]))
		cum += float64(e[id] * rinv)
		if float32(cum) > limit {
			break
		}
		drop++
	}
	if drop == 0 {
		return surv
	}
	ninf := float32(math.Inf(-1))
	for _, k := range keys[:drop] {
		x[uint32(k)] = ninf
	}
	m := 0
	for _, id := range surv {
		if x[id] != ninf {
			surv[m] = id
			m++
		}
	}
	return surv[:m]
}

// sortable maps a float32 (not NaN) to a uint32 with the same order.
func sortable(v float32) uint32 {
	b := math.Float32bits(v)
	m := uint32(int32(b) >> 31) // all ones for a negative value
	return b ^ (m | 1<<31)
}
