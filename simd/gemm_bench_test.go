package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchQ8Set returns matrices of rows×cols (clones of one quantized matrix)
// totalling at least total bytes, so a pass over them comes from DRAM when
// total exceeds the L3.
func benchQ8Set(b *testing.B, rows, cols, block, total int) []*Q8Matrix {
	rng := rand.New(rand.NewPCG(5, 6))
	w0, err := QuantizeQ8(randWeights(rng, rows, cols, block), rows, cols, block)
	if err != nil {
		b.Fatal(err)
	}
	set := []*Q8Matrix{w0}
	for n := w0.Bytes(); n < total; n += w0.Bytes() {
		set = append(set, w0.Clone())
	}
	return set
}

func BenchmarkGemmQ8(b *testing.B) {
	for _, shape := range [][2]int{{1024, 3072}, {3072, 1024}} {
		rows, cols := shape[0], shape[1]
		for _, where := range []struct {
			name  string
			total int
		}{{"cache", 0}, {"dram", 768 << 20}} {
			if where.total > 0 && testing.Short() {
				continue
			}
			set := benchQ8Set(b, rows, cols, DefaultBlock, where.total)
			for _, m := range []int{1, 8, 64} {
				rng := rand.New(rand.NewPCG(7, 8))
				x := NewQ8Input(m, cols, DefaultBlock)
				x.Quantize(randActs(rng, m, cols), m)
				y := make([]float32, m*rows)
				for _, l := range Levels() {
					if !Supported(l) || (l == Generic && (where.total > 0 || m > 1)) {
						continue
					}
					b.Run(fmt.Sprintf("%dx%dx%d/%s/%s", m, cols, rows, where.name, l), func(b *testing.B) {
						defer Use(l)()
						b.SetBytes(int64(set[0].Bytes()))
						i := 0
						for b.Loop() {
							GemmQ8(y, x, set[i%len(set)])
							i++
						}
					})
				}
			}
		}
	}
}
