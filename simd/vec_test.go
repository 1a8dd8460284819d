package simd

import (
	"math"
	"testing"
)

func TestAddExact(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(1)
		for _, n := range vecSizes {
			for _, off := range []int{0, 1} {
				dst := vecRandBuf(rng, n, off, 4)
				x := vecRandBuf(rng, n, off, 4)
				want := make([]float32, n)
				for i := range want {
					want[i] = dst.s()[i] + x.s()[i] // one float32 rounding: exact at every level
				}
				x0 := vecClone(x.s())
				Add(dst.s(), x.s())
				if i := vecFirstDiff(dst.s(), want); i >= 0 {
					t.Fatalf("Add(n=%d off=%d) [%d] = %v, want %v", n, off, i, dst.s()[i], want[i])
				}
				if i := vecFirstDiff(x.s(), x0); i >= 0 {
					t.Fatalf("Add(n=%d off=%d) modified x[%d]", n, off, i)
				}
				dst.check(t, "Add")
				x.check(t, "Add x")
			}
		}
	})
}

func TestScaleExact(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(2)
		for _, n := range vecSizes {
			for _, off := range []int{0, 1} {
				x := vecRandBuf(rng, n, off, 4)
				const alpha = float32(-0.37)
				want := make([]float32, n)
				for i := range want {
					want[i] = x.s()[i] * alpha
				}
				Scale(alpha, x.s())
				if i := vecFirstDiff(x.s(), want); i >= 0 {
					t.Fatalf("Scale(n=%d off=%d) [%d] = %v, want %v", n, off, i, x.s()[i], want[i])
				}
				x.check(t, "Scale")
			}
		}
	})
}

func TestAxpy(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(3)
		for _, n := range vecSizes {
			for _, off := range []int{0, 1} {
				y := vecRandBuf(rng, n, off, 4)
				x := vecRandBuf(rng, n, off, 4)
				const alpha = float32(1.7)
				want := make([]float64, n)
				for i := range want {
					want[i] = float64(y.s()[i]) + float64(alpha)*float64(x.s()[i])
				}
				x0 := vecClone(x.s())
				Axpy(alpha, x.s(), y.s())
				for i, w := range want {
					mag := math.Abs(float64(y.s()[i])) + math.Abs(float64(alpha)*float64(x0[i]))
					if !vecClose(float64(y.s()[i]), w, mag, 1.2e-7, 0) {
						t.Fatalf("Axpy(n=%d off=%d) [%d] = %v, want %v", n, off, i, y.s()[i], w)
					}
				}
				if i := vecFirstDiff(x.s(), x0); i >= 0 {
					t.Fatalf("Axpy(n=%d off=%d) modified x[%d]", n, off, i)
				}
				y.check(t, "Axpy")
			}
		}
	})
}

func TestDot(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(4)
		for _, n := range vecSizes {
			for _, off := range []int{0, 1} {
				x := vecRandBuf(rng, n, off, 2)
				y := vecRandBuf(rng, n, 1-off, 2)
				var want, mag float64
				for i := range n {
					p := float64(x.s()[i]) * float64(y.s()[i])
					want += p
					mag += math.Abs(p)
				}
				x0, y0 := vecClone(x.s()), vecClone(y.s())
				got := Dot(x.s(), y.s())
				// float32 accumulation: error ≲ (terms per partial sum + log₂ partials)·ε·Σ|xᵢyᵢ|.
				tol := float64(n/4+8) * 6e-8
				if !vecClose(float64(got), want, mag, tol, 0) {
					t.Fatalf("Dot(n=%d off=%d) = %v, want %v (Σ|xy| %v)", n, off, got, want, mag)
				}
				if vecFirstDiff(x.s(), x0) >= 0 || vecFirstDiff(y.s(), y0) >= 0 {
					t.Fatalf("Dot(n=%d) modified its inputs", n)
				}
			}
		}
	})
}

func TestDotExactSmallIntegers(t *testing.T) {
	// Small integers make every partial sum exact, so any level must return
	// exactly Σ i·(i mod 7 − 3).
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{1, 15, 16, 17, 100, 1000} {
			x, y := make([]float32, n), make([]float32, n)
			want := 0
			for i := range n {
				x[i], y[i] = float32(i), float32(i%7-3)
				want += i * (i%7 - 3)
			}
			if got := Dot(x, y); got != float32(want) {
				t.Fatalf("Dot(n=%d) = %v, want %d", n, got, want)
			}
		}
	})
}

func TestVecLengthMismatchPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Add":  func() { Add(make([]float32, 3), make([]float32, 4)) },
		"Axpy": func() { Axpy(1, make([]float32, 3), make([]float32, 4)) },
		"Dot":  func() { Dot(make([]float32, 3), make([]float32, 4)) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); len(s) < 11 || s[:11] != "omni: BUG: " {
					t.Errorf("%s with mismatched lengths: recovered %v, want an omni: BUG panic", name, r)
				}
			}()
			f()
		}()
	}
}
