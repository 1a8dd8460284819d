package simd

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// refHadamard is the definition: y[i] = Σ_j (−1)^popcount(i&j) x[j] / √n
// per n-wide block, in float64.
func refHadamard(x []float32, n int) []float64 {
	y := make([]float64, len(x))
	for b := 0; b < len(x); b += n {
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < n; j++ {
				v := float64(x[b+j])
				if bits.OnesCount(uint(i&j))%2 == 1 {
					v = -v
				}
				s += v
			}
			y[b+i] = s / math.Sqrt(float64(n))
		}
	}
	return y
}

func TestHadamardDefinition(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 9))
		for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
			for _, blocks := range []int{0, 1, 3, 7} {
				x := make([]float32, n*blocks)
				var mag float64
				for i := range x {
					x[i] = float32(rng.NormFloat64() * 4)
					mag = math.Max(mag, math.Abs(float64(x[i])))
				}
				want := refHadamard(x, n)
				Hadamard(x, n)
				// log2(n) rounded stages of values ≤ √n·mag each.
				tol := 1e-6 * mag * math.Sqrt(float64(n)) * float64(bits.Len(uint(n)))
				for i := range x {
					if d := math.Abs(float64(x[i]) - want[i]); d > tol {
						t.Fatalf("Hadamard(n=%d, %d blocks)[%d] = %v, want %v (|diff| %g > %g)", n, blocks, i, x[i], want[i], d, tol)
					}
				}
			}
		}
	})
}

// TestHadamardLevelsAgree checks every level gives the reference loop's
// bits (the loop of the doc comment, written out here).
func TestHadamardLevelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	const n, blocks = 64, 9
	x := make([]float32, n*blocks)
	for i := range x {
		x[i] = float32(rng.NormFloat64()) * float32(1+i%7)
	}
	want := append([]float32(nil), x...)
	for b := 0; b < len(want); b += n {
		v := want[b : b+n]
		for h := 1; h < n; h *= 2 {
			for i := 0; i < n; i += 2 * h {
				for j := i; j < i+h; j++ {
					v[j], v[j+h] = v[j]+v[j+h], v[j]-v[j+h]
				}
			}
		}
		for i := range v {
			v[i] *= float32(1 / math.Sqrt(float64(n)))
		}
	}
	eachLevel(t, func(t *testing.T) {
		y := append([]float32(nil), x...)
		Hadamard(y, n)
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
				t.Fatalf("Hadamard[%d] = %v, reference loop %v", i, y[i], want[i])
			}
		}
	})
}

func TestHadamardBadShape(t *testing.T) {
	for _, c := range []struct{ len, n int }{{6, 3}, {10, 4}, {4, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Hadamard(len %d, n %d) did not panic", c.len, c.n)
				}
			}()
			Hadamard(make([]float32, c.len), c.n)
		}()
	}
}

func BenchmarkHadamard64(b *testing.B) {
	x := make([]float32, 8*3072)
	for i := range x {
		x[i] = float32(i%13) - 6
	}
	eachLevel(b, func(b *testing.B) {
		b.SetBytes(int64(4 * len(x)))
		for i := 0; i < b.N; i++ {
			Hadamard(x, 64)
		}
	})
}
