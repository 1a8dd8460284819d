package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkQuantizeQ4 times the load-time quantizer on a 1024×3072 matrix
// (ns per weight: divide ns/op by 3·2²⁰).
func BenchmarkQuantizeQ4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const rows, cols = 1024, 3072
	w := randActs(rng, rows, cols)
	b.SetBytes(4 * rows * cols)
	for i := 0; i < b.N; i++ {
		if _, err := QuantizeQ4(w, rows, cols, Q4NonUniform); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGemmQ4 times GemmQ4 beside GemmQ8 on the same 3072×1024 shape
// (bytes/s are the matrix bytes streamed), per level and input rows m.
func BenchmarkGemmQ4(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const rows, cols = 3072, 1024
	wf := randActs(rng, rows, cols)
	w4, _ := QuantizeQ4(wf, rows, cols, Q4NonUniform)
	w8, _ := QuantizeQ8(wf, rows, cols, 32)
	for _, m := range []int{1, 8} {
		x := NewQ8Input(m, cols, 32)
		x.Quantize(randActs(rng, m, cols), m)
		y := make([]float32, m*rows)
		eachLevel(b, func(b *testing.B) {
			b.Run(fmt.Sprintf("q4/m%d", m), func(b *testing.B) {
				b.SetBytes(int64(w4.Bytes()))
				for i := 0; i < b.N; i++ {
					GemmQ4(y, x, w4)
				}
			})
			b.Run(fmt.Sprintf("q8/m%d", m), func(b *testing.B) {
				b.SetBytes(int64(w8.Bytes()))
				for i := 0; i < b.N; i++ {
					GemmQ8(y, x, w8)
				}
			})
		})
	}
}
