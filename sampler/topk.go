package sampler

import "math"

// kthLargest returns the k-th largest value of x counting duplicates (the
// value torch's sort puts at position V−k ascending), using h (len ≥ k) as a
// min-heap of the k largest seen. 1 ≤ k < len(x); x holds no NaN.
func kthLargest(x []float32, k int, h []float32) float32 {
	h = h[:k]
	copy(h, x[:k])
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	top := h[0]
	for _, v := range x[k:] {
		if v > top {
			h[0] = v
			siftDown(h, 0)
			top = h[0]
		}
	}
	return top
}

// siftDown restores the min-heap property of h below i.
func siftDown(h []float32, i int) {
	n := len(h)
	v := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1] < h[c] {
			c++
		}
		if h[c] >= v {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = v
}

// collectAtLeast writes to dst the ascending indices whose value is ≥ thr
// and finite or +inf (a -inf value has probability 0 and is left out).
func collectAtLeast(x []float32, thr float32, dst []int32) []int32 {
	n := 0
	ninf := float32(math.Inf(-1))
	for i, v := range x {
		if v >= thr && v != ninf {
			dst[n] = int32(i)
			n++
		}
	}
	return dst[:n]
}

// collectFinite writes to dst the ascending indices whose value is not -inf.
func collectFinite(x []float32, dst []int32) []int32 {
	n := 0
	ninf := float32(math.Inf(-1))
	for i, v := range x {
		if v != ninf {
			dst[n] = int32(i)
			n++
		}
	}
	return dst[:n]
}

// maskBelow sets every value below thr to -inf (vLLM's top-k mask).
func maskBelow(x []float32, thr float32) {
	ninf := float32(math.Inf(-1))
	for i, v := range x {
		if v < thr {
			x[i] = ninf
		}
	}
}
