package predictor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFirstNonFinite checks the blocked scan against the definition
// (math.IsNaN or math.IsInf of each value) on rows that put one bad value
// at every position around the block and unroll boundaries, among values
// at the edges of the finite range (±max, subnormals, ±0).
func TestFirstNonFinite(t *testing.T) {
	edge := []float32{0, float32(math.Copysign(0, -1)), math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1, -1}
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000)}
	ref := func(v []float32) int {
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return i
			}
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 4, 5, 255, 256, 257, 1023, 1030} {
		v := make([]float32, n)
		for i := range v {
			v[i] = edge[rng.IntN(len(edge))]
		}
		if got := firstNonFinite(v); got != -1 {
			t.Fatalf("firstNonFinite(%d finite values) = %d, want -1", n, got)
		}
		for _, at := range []int{0, 1, 2, 3, 4, 254, 255, 256, 257, n - 2, n - 1} {
			if at < 0 || at >= n {
				continue
			}
			for _, b := range bad {
				w := append([]float32(nil), v...)
				w[at] = b
				if at+5 < n {
					w[at+5] = bad[0] // a later bad value must not win
				}
				if got, want := firstNonFinite(w), ref(w); got != want {
					t.Fatalf("firstNonFinite(n=%d, %v at %d) = %d, want %d", n, b, at, got, want)
				}
			}
		}
	}
}
