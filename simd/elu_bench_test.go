package simd

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkELU times ELU on 64 Ki values, half of them negative.
func BenchmarkELU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 1<<16)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	out := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		ELU(out, x)
	}
}
