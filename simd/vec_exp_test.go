package simd

import (
	"math"
	"testing"
)

// expAtLevel returns exp of every element of xs computed by the kernel the
// current level runs inside Softmax (expSub with m = 0).
func expAtLevel(xs []float32) []float32 {
	out := vecClone(xs)
	switch Active() {
	case AVX512VNNI:
		expSubAVX512(&out[0], len(out), 0)
	case AVX2:
		k := len(out) &^ 7
		expSubAVX2(&out[0], k, 0)
		expSubGeneric(out[k:], 0)
	default:
		expSubGeneric(out, 0)
	}
	return out
}

// Error bounds of the Cephes exponential against math.Exp: relative for
// normal results, absolute (in units of the smallest subnormal) below.
const (
	expRelTol = 1.2e-7
	expSubTol = 1.0 * 0x1p-149
)

func TestExpAccuracy(t *testing.T) {
	var xs []float32
	for x := -110.0; x <= 92; x += 0.00037 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-8, -1e-8,
		-104, -103.97, -103.28, -87.3365, -87.33, 88.72283, 88.7228, 88.73, 88.8, 89,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	eachLevel(t, func(t *testing.T) {
		got := expAtLevel(xs)
		var maxRel float64
		for i, x := range xs {
			want := math.Exp(float64(x))
			g := float64(got[i])
			switch {
			case math.IsNaN(float64(x)):
				if !math.IsNaN(g) {
					t.Fatalf("exp(NaN) = %v, want NaN", g)
				}
			case want > math.MaxFloat32:
				if !math.IsInf(g, 1) {
					t.Fatalf("exp(%v) = %v, want +Inf", x, g)
				}
			case want >= 0x1p-126:
				rel := math.Abs(g-want) / want
				maxRel = max(maxRel, rel)
				if rel > expRelTol {
					t.Fatalf("exp(%v) = %v, want %v (relative error %.3g > %.3g)", x, g, want, rel, expRelTol)
				}
			default:
				if math.Abs(g-want) > expSubTol {
					t.Fatalf("exp(%v) = %v, want %v (subnormal range, error %.3g)", x, g, want, math.Abs(g-want))
				}
			}
		}
		t.Logf("max relative error over %d points: %.3g", len(xs), maxRel)
	})
}
