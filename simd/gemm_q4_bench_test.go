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

// BenchmarkPoolGemmQ4 is BenchmarkPoolGemmQ8 for 4-bit weights: the pool's
// GemmQ4 on the predictor's 1024×3072 shape, from cache and from DRAM
// (copies of the matrix cycled through 768 MiB), for 1, 2, 4 and 8 input
// rows; bytes/s are the matrix bytes streamed.
func BenchmarkPoolGemmQ4(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	w0, err := QuantizeQ4(randWeights(rng, 1024, 3072, Q4Block), 1024, 3072, Q4NonUniform)
	if err != nil {
		b.Fatal(err)
	}
	for _, where := range []struct {
		name  string
		total int
	}{{"cache", 0}, {"dram", 768 << 20}} {
		set := []*Q4Matrix{w0}
		for n := w0.Bytes(); n < where.total; n += w0.Bytes() {
			set = append(set, w0.Clone())
		}
		for _, m := range []int{1, 2, 4, 8} {
			x := NewQ8Input(m, 3072, Q4Block)
			x.Quantize(randActs(rng, m, 3072), m)
			y := make([]float32, m*1024)
			b.Run(fmt.Sprintf("%dx3072x1024/%s/threads=%d/%s", m, where.name, p.Threads(), Active()), func(b *testing.B) {
				b.SetBytes(int64(w0.Bytes()))
				i := 0
				for b.Loop() {
					p.GemmQ4(y, x, set[i%len(set)])
					i++
				}
			})
		}
	}
}
