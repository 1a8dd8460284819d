//go:build amd64 && gc && !purego

package simd

// statsColsAVX512 computes, for ncols (1…16) columns of m ≥ 1 rows (row
// stride stride floats) of logits l and values x, with p = exp(l − column
// max) in float32 (the Softmax kernels' exponential): s[0:16] = Σ p,
// s[16:32] = Σ p·x, s[32:48] = Σ p·x² in float64, rows in order.
//
//go:noescape
func statsColsAVX512(l, x *float32, m, stride, ncols int, s *[48]float64)
