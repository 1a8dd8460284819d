package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttentionPairKernels: the two-head AVX-512 kernels (each K or V
// row loaded once for both query heads of a group) give each head the
// bits of the one-head kernels, for position counts through the 8-wide
// blocks and the remainder, head widths of 16–256 (scores) and 128–256
// (values), a row stride wider than the head, and outputs that already
// hold sums (the weighted sums add to them).
func TestAttentionPairKernels(t *testing.T) {
	if why := levelSkip(AVX512VNNI); why != "" {
		if required(AVX512VNNI) {
			t.Fatalf("%s, but %s requires it", why, requireEnv)
		}
		t.Skip(why)
	}
	r := rand.New(rand.NewPCG(3, 4))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	same := func(what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: element %d = %v, one-head kernel %v", what, i, got[i], want[i])
			}
		}
	}
	for _, hd := range []int{16, 48, 128, 256} {
		for _, nPos := range []int{1, 3, 7, 8, 9, 16, 23, 64} {
			stride := 3*hd + 16
			q, k, v := fill(2*hd), fill(nPos*stride), fill(nPos*stride)
			sa, sb := make([]float32, nPos), make([]float32, nPos)
			attnScores2AVX512(&sa[0], &sb[0], &q[0], &k[0], nPos, stride, hd, 0.0884)
			wa, wb := make([]float32, nPos), make([]float32, nPos)
			attnScoresAVX512(&wa[0], &q[0], &k[0], nPos, stride, hd, 0.0884)
			attnScoresAVX512(&wb[0], &q[hd], &k[0], nPos, stride, hd, 0.0884)
			same("scores, head a", sa, wa)
			same("scores, head b", sb, wb)
			if hd%128 != 0 {
				continue
			}
			oa, ob := fill(hd), fill(hd)
			ra, rb := append([]float32(nil), oa...), append([]float32(nil), ob...)
			attnValues2AVX512(&oa[0], &ob[0], &sa[0], &sb[0], &v[0], nPos, stride, hd)
			attnValuesAVX512(&ra[0], &sa[0], &v[0], nPos, stride, hd)
			attnValuesAVX512(&rb[0], &sb[0], &v[0], nPos, stride, hd)
			same("values, head a", oa, ra)
			same("values, head b", ob, rb)
		}
	}
}
