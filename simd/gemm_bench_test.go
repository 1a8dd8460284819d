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
			for _, m := range []int{1, 2, 4, 8, 64} {
				rng := rand.New(rand.NewPCG(7, 8))
				x := NewQ8Input(m, cols, DefaultBlock)
				x.Quantize(randActs(rng, m, cols), m)
				y := make([]float32, m*rows)
				for _, l := range Levels() {
					if levelSkip(l) != "" || (l == Generic && (where.total > 0 || m > 1)) {
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

func BenchmarkQuantize(b *testing.B) {
	for _, m := range []int{1, 8, 64} {
		for _, cols := range []int{1024, 3072} {
			rng := rand.New(rand.NewPCG(1, 1))
			x := NewQ8Input(m, cols, DefaultBlock)
			xf := randActs(rng, m, cols)
			b.Run(fmt.Sprintf("%dx%d", m, cols), func(b *testing.B) {
				b.SetBytes(int64(4 * m * cols))
				for b.Loop() {
					x.Quantize(xf, m)
				}
			})
		}
	}
}

func BenchmarkGemmF32(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, shape := range [][2]int{{1024, 3072}, {3072, 1024}} {
		rows, cols := shape[0], shape[1]
		wf := make([]float32, rows*cols)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
		}
		w, _ := NewF32Matrix(wf, rows, cols)
		for _, m := range []int{1, 8} {
			x := randActs(rng, m, cols)
			y := make([]float32, m*rows)
			for _, l := range Levels() {
				if levelSkip(l) != "" || (l == Generic && m > 1) {
					continue
				}
				b.Run(fmt.Sprintf("%dx%dx%d/cache/%s", m, cols, rows, l), func(b *testing.B) {
					defer Use(l)()
					b.SetBytes(int64(w.Bytes()))
					for b.Loop() {
						GemmF32(y, x, m, w)
					}
				})
			}
		}
	}
}

// BenchmarkPoolGemmQ8 is GemmQ8 over the pool's threads, hand-off
// included, on one matrix (in cache) and on a set of 768 MiB (from DRAM, as
// a decode step reads its weights), at 1, 2, 4 and 8 rows (decode steps of
// that many streams) and 16 and 32 (a prompt's prefill: several passes of
// 8 rows over each chunk of panels).
func BenchmarkPoolGemmQ8(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	for _, where := range []struct {
		name  string
		total int
	}{{"cache", 0}, {"dram", 768 << 20}} {
		set := benchQ8Set(b, 1024, 3072, DefaultBlock, where.total)
		for _, m := range []int{1, 2, 4, 8, 16, 32} { // 16 and 32: a prompt's prefill
			rng := rand.New(rand.NewPCG(7, 8))
			x := NewQ8Input(m, 3072, DefaultBlock)
			x.Quantize(randActs(rng, m, 3072), m)
			y := make([]float32, m*1024)
			b.Run(fmt.Sprintf("%dx3072x1024/%s/threads=%d/%s", m, where.name, p.Threads(), Active()), func(b *testing.B) {
				b.SetBytes(int64(set[0].Bytes()))
				i := 0
				for b.Loop() {
					p.GemmQ8(y, x, set[i%len(set)])
					i++
				}
			})
		}
	}
}

// BenchmarkGemmQ8Block compares block lengths on the same shape (bytes per
// weight differ: 1 + 2/BK), the speed half of the DefaultBlock decision.
func BenchmarkGemmQ8Block(b *testing.B) {
	for _, block := range []int{32, 64, 128} {
		set := benchQ8Set(b, 1024, 3072, block, 0)
		for _, m := range []int{1, 8} {
			rng := rand.New(rand.NewPCG(7, 8))
			x := NewQ8Input(m, 3072, block)
			x.Quantize(randActs(rng, m, 3072), m)
			y := make([]float32, m*1024)
			b.Run(fmt.Sprintf("%dx3072x1024/bk=%d/%s", m, block, Active()), func(b *testing.B) {
				b.ReportMetric(float64(1024*3072), "weights/op")
				b.SetBytes(int64(set[0].Bytes()))
				for b.Loop() {
					GemmQ8(y, x, set[0])
				}
			})
		}
	}
}
