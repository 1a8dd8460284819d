package sampler

import "math"

// applyMinP is vLLM's MinP processor on one row: P = softmax(x),
// thr = max(P)·min_p (fp32), x[P < thr] = -inf. max(P) is exactly
// fp32(1/sum) because the largest exp(x − max) is 1.
func (s *Sampler) applyMinP(x []float32, max, minP float32) {
	e := s.e
	var sum float64
	for i, v := range x {
		ei := exp32(v - max)
		e[i] = ei
		sum += float64(ei)
	}
	rinv := 1 / float32(sum)
	thr := rinv * minP
	ninf := float32(math.Inf(-1))
	for i := range x {
		if e[i]*rinv < thr {
			x[i] = ninf
		}
	}
}
