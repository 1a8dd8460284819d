package sampler

// race is vLLM's random_sample on one row: P = softmax(x) over the
// survivors (every other value is -inf, so P = 0 there), then
// argmax(P / q) with torch's argmax rules (first NaN, else first maximum).
// q holds the survivors' noise; zero is the first non-survivor whose noise
// is exactly 0 (0/0 = NaN there), or -1.
func (s *Sampler) race(x []float32, surv []int32, q []float32, max float32, zero int) int32 {
	e := s.e
	var sum float64
	for _, id := range surv {
		ei := exp32(x[id] - max)
		e[id] = ei
		sum += float64(ei)
	}
	rinv := 1 / float32(sum)
	best, bestV := int32(0), float32(-1)
	nan := int32(zero)
	for j, id := range surv {
		v := (e[id] * rinv) / q[j]
		if v != v {
			if nan < 0 || id < nan {
				nan = id
			}
			continue
		}
		if v > bestV {
			best, bestV = id, v
		}
	}
	if nan >= 0 {
		return nan
	}
	return best
}
