package simd

import (
	"math"
	"testing"
)

// refSoftmax is the definition in float64: exp(xᵢ − max) / Σ exp(xⱼ − max).
func refSoftmax(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	out := make([]float64, len(x))
	var s float64
	for i, v := range x {
		out[i] = math.Exp(float64(v) - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func softmaxTol(n int) float64 {
	if n <= 128 {
		return 2e-6
	}
	return 1e-5
}

func TestSoftmax(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(30)
		for _, n := range vecSizes[1:] {
			for _, off := range []int{0, 1} {
				x := vecRandBuf(rng, n, off, 8)
				want := refSoftmax(x.s())
				Softmax(x.s())
				var sum float64
				for i, w := range want {
					sum += float64(x.s()[i])
					if !vecClose(float64(x.s()[i]), w, w, softmaxTol(n), 1e-37) {
						t.Fatalf("Softmax(n=%d off=%d) [%d] = %v, want %v", n, off, i, x.s()[i], w)
					}
				}
				if math.Abs(sum-1) > softmaxTol(n) {
					t.Fatalf("Softmax(n=%d) sums to %v", n, sum)
				}
				x.check(t, "Softmax")
			}
		}
	})
}

func TestSoftmaxSpecialValues(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	eachLevel(t, func(t *testing.T) {
		// −Inf entries are exactly 0 and the rest is the softmax of the finite ones.
		for _, n := range []int{1, 7, 16, 17, 40} {
			x := make([]float32, n+1)
			var finite []float32
			for i := range x {
				if i%3 == 1 {
					x[i] = -inf
				} else {
					x[i] = float32(i%5) - 2
					finite = append(finite, x[i])
				}
			}
			want := refSoftmax(finite)
			Softmax(x)
			k := 0
			for i, v := range x {
				if i%3 == 1 {
					if v != 0 || math.Signbit(float64(v)) {
						t.Fatalf("Softmax(n=%d) −Inf entry %d = %v, want 0", n+1, i, v)
					}
					continue
				}
				if !vecClose(float64(v), want[k], want[k], 2e-6, 0) {
					t.Fatalf("Softmax(n=%d) with −Inf entries [%d] = %v, want %v", n+1, i, v, want[k])
				}
				k++
			}
		}
		// All equal: exp(0) is exactly 1, so every entry is exactly 1/n.
		for _, n := range []int{1, 3, 16, 33, 1000} {
			x := make([]float32, n)
			for i := range x {
				x[i] = 42.5
			}
			Softmax(x)
			for i, v := range x {
				if v != 1/float32(n) {
					t.Fatalf("Softmax of %d equal values [%d] = %v, want %v", n, i, v, 1/float32(n))
				}
			}
		}
		// Huge magnitudes: only the maximum survives.
		x := []float32{-1e30, 1e30, 3e38, -3e38, 0, 1e38, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
		Softmax(x)
		for i, v := range x {
			if want := float32(map[bool]int{true: 1}[i == 2]); v != want {
				t.Fatalf("Softmax with huge values [%d] = %v, want %v", i, v, want)
			}
		}
		// NaN anywhere, +Inf, or all −Inf: every element NaN (as in PyTorch).
		for name, x := range map[string][]float32{
			"NaN first":  append([]float32{nan}, make([]float32, 20)...),
			"NaN last":   append(make([]float32, 20), nan),
			"NaN middle": {1, 2, 3, nan, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17},
			"+Inf":       {1, inf, 3, 4, 5, 6, 7, 8, 9},
			"all −Inf":   {-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf},
		} {
			Softmax(x)
			for i, v := range x {
				if v == v {
					t.Fatalf("Softmax(%s) [%d] = %v, want NaN", name, i, v)
				}
			}
		}
	})
}

func TestSoftmaxAllocs(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		x := make([]float32, 3072)
		if a := testing.AllocsPerRun(20, func() { Softmax(x) }); a != 0 {
			t.Fatalf("Softmax allocates %v times per call", a)
		}
	})
}
