package simd

import (
	"math"
	"strings"
	"testing"
)

func refSiLU(g float64) float64 { return g / (1 + math.Exp(-g)) }

// siluTol: exp (1.2e-7) plus the rounding of 1+e, the division and the
// product.
const siluTol = 4e-7

func TestSiLUMul(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(40)
		for _, n := range vecSizes {
			for _, off := range []int{0, 1} {
				gate := vecRandBuf(rng, n, off, 12)
				up := vecRandBuf(rng, n, 1-off, 3)
				out := newVecBuf(n, off)
				g0, u0 := vecClone(gate.s()), vecClone(up.s())
				SiLUMul(out.s(), gate.s(), up.s())
				for i := range n {
					want := refSiLU(float64(g0[i])) * float64(u0[i])
					if !vecClose(float64(out.s()[i]), want, math.Abs(want), siluTol, 1e-37) {
						t.Fatalf("SiLUMul(n=%d off=%d) [%d] = %v, want %v (gate %v up %v)", n, off, i, out.s()[i], want, g0[i], u0[i])
					}
				}
				if vecFirstDiff(gate.s(), g0) >= 0 || vecFirstDiff(up.s(), u0) >= 0 {
					t.Fatalf("SiLUMul(n=%d) modified its inputs", n)
				}
				out.check(t, "SiLUMul")
			}
		}
	})
}

func TestSiLUMulSpecialValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	gates := []float64{0, math.Copysign(0, -1), 1e-30, -1e-30, 80, -80, 88, -88, 100, -100, 1e30, -1e30, inf, -inf, nan, 3, -3, 0.5, -0.5}
	eachLevel(t, func(t *testing.T) {
		g, up, out := make([]float32, len(gates)), make([]float32, len(gates)), make([]float32, len(gates))
		for i, v := range gates {
			g[i], up[i] = float32(v), 1.5
		}
		SiLUMul(out, g, up)
		for i, v := range gates {
			got := float64(out[i])
			var want float64
			switch {
			case math.IsNaN(v) || v == -inf:
				want = nan // NaN propagates; −Inf/(1+Inf) is NaN
			case v == inf:
				want = inf
			default:
				want = refSiLU(v) * 1.5
			}
			if !vecClose(got, want, math.Abs(want), siluTol, 1e-35) {
				t.Errorf("SiLUMul(gate %v, up 1.5) = %v, want %v", v, got, want)
			}
		}
	})
}

func TestSiLUMulInPlace(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(41)
		g := vecRandBuf(rng, 100, 0, 6).s()
		u := vecRandBuf(rng, 100, 0, 6).s()
		want := make([]float32, 100)
		SiLUMul(want, g, u)
		SiLUMul(g, g, u)
		if i := vecFirstDiff(g, want); i >= 0 {
			t.Fatalf("SiLUMul in place [%d] = %v, want %v", i, g[i], want[i])
		}
	})
}

func TestSiLU(t *testing.T) {
	x := []float32{-20, -3, -0.5, 0, 0.5, 3, 20}
	out := make([]float32, len(x))
	SiLU(out, x)
	for i, v := range x {
		if want := refSiLU(float64(v)); !vecClose(float64(out[i]), want, math.Abs(want), siluTol, 0) {
			t.Errorf("SiLU(%v) = %v, want %v", v, out[i], want)
		}
	}
}

func TestSiLUMulPanics(t *testing.T) {
	defer func() {
		if s, _ := recover().(string); !strings.HasPrefix(s, "omni: BUG: ") {
			t.Errorf("SiLUMul with mismatched lengths: want an omni: BUG panic, got %q", s)
		}
	}()
	SiLUMul(make([]float32, 3), make([]float32, 3), make([]float32, 2))
}
