package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSoftmaxStats compares the pooling op with its definition evaluated
// directly (an explicit softmax per channel, then two-pass weighted
// statistics), on one thread and on the pool, at every level, with a
// constant channel (std at the clamp) and very large logits.
func TestSoftmaxStats(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 3} {
			b := NewBackend(threads)
			for _, sz := range [][2]int{{1, 5}, {7, 3}, {300, 200}, {937, 130}} {
				m, c := sz[0], sz[1]
				r := rand.New(rand.NewPCG(uint64(m), uint64(c)))
				x, l := make([]float32, m*c), make([]float32, m*c)
				for i := range x {
					x[i] = float32(r.NormFloat64() * 3)
					l[i] = float32(r.NormFloat64() * 4)
					if i%c == 1 {
						x[i], l[i] = 2.5, 80+float32(r.NormFloat64())
					}
				}
				got := make([]float32, 2*c)
				if err := b.SoftmaxStats(got, x, l, m, c); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < c; i++ {
					mx := math.Inf(-1)
					for row := 0; row < m; row++ {
						mx = math.Max(mx, float64(l[row*c+i]))
					}
					w := make([]float64, m)
					var z float64
					for row := range w {
						w[row] = math.Exp(float64(l[row*c+i]) - mx)
						z += w[row]
					}
					var mean, v float64
					for row := range w {
						w[row] /= z
						mean += w[row] * float64(x[row*c+i])
					}
					for row := range w {
						d := float64(x[row*c+i]) - mean
						v += w[row] * d * d
					}
					std := math.Sqrt(math.Max(v, 1e-12))
					if math.Abs(float64(got[i])-mean) > 1e-5*(1+math.Abs(mean)) || math.Abs(float64(got[c+i])-std) > 1e-5*(1+std) {
						t.Fatalf("%d threads, %d×%d, channel %d: mean %v std %v, want %v %v", threads, m, c, i, got[i], got[c+i], mean, std)
					}
				}
			}
			if err := b.SoftmaxStats(make([]float32, 3), make([]float32, 4), make([]float32, 4), 2, 2); err == nil {
				t.Fatal("wrong out length accepted")
			}
			b.Close()
		}
	})
}
