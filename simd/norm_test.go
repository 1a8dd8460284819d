package simd

import (
	"math"
	"testing"
)

// refRMSNorm is the definition in float64: x / sqrt(mean(x²) + eps) · w.
func refRMSNorm(x, w []float32, m int, eps float32) []float64 {
	n := len(w)
	out := make([]float64, m*n)
	for r := range m {
		var ss float64
		for _, v := range x[r*n : (r+1)*n] {
			ss += float64(v) * float64(v)
		}
		inv := 1 / math.Sqrt(ss/float64(n)+float64(eps))
		for i := range n {
			out[r*n+i] = float64(x[r*n+i]) * inv * float64(w[i])
		}
	}
	return out
}

// normTol: inv is rounded to float32 once and each of the two products once.
const normTol = 3e-7

func checkNorm(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	for i, w := range want {
		if !vecClose(float64(got[i]), w, math.Abs(w), normTol, 1e-37) {
			t.Fatalf("%s [%d] = %v, want %v", what, i, got[i], w)
		}
	}
}

func TestRMSNorm(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(10)
		for _, n := range vecSizes {
			for _, m := range []int{1, 3} {
				for _, off := range []int{0, 1} {
					x := vecRandBuf(rng, m*n, off, 3)
					w := vecRandBuf(rng, n, 1-off, 2)
					out := newVecBuf(m*n, off)
					x0, w0 := vecClone(x.s()), vecClone(w.s())
					RMSNorm(out.s(), x.s(), w.s(), m, 1e-6)
					what := "RMSNorm(" + itoa(m) + "x" + itoa(n) + " off " + itoa(off) + ")"
					checkNorm(t, what, out.s(), refRMSNorm(x0, w0, m, 1e-6))
					if vecFirstDiff(x.s(), x0) >= 0 || vecFirstDiff(w.s(), w0) >= 0 {
						t.Fatalf("%s modified its inputs", what)
					}
					out.check(t, what)
				}
			}
		}
	})
}

func TestRMSNormInPlaceAndSpecialRows(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		const n = 37
		rng := vecRNG(11)
		w := vecRandBuf(rng, n, 0, 2).s()
		x := make([]float32, 4*n)
		for i := range n {
			x[i] = 0                                        // zero row → zeros (eps keeps it finite)
			x[n+i] = float32(1e30 * (1 + float64(i)/n))     // squares overflow float32, not float64
			x[2*n+i] = float32(1e-30 * (1 + float64(i)/n))  // squares underflow float32
			x[3*n+i] = (rng.Float32()*2 - 1) * float32(i+1) // ordinary
		}
		want := refRMSNorm(x, w, 4, 1e-6)
		RMSNorm(x, x, w, 4, 1e-6) // in place
		checkNorm(t, "RMSNorm in place", x, want)
		for i := range n {
			if x[i] != 0 {
				t.Fatalf("RMSNorm of a zero row [%d] = %v, want 0", i, x[i])
			}
		}
	})
}

func TestRMSNormHeads(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		rng := vecRNG(12)
		for _, c := range []struct{ heads, dim int }{{16, 128}, {8, 128}, {1, 128}, {3, 64}, {5, 17}} {
			x := vecRandBuf(rng, c.heads*c.dim, 1, 5)
			w := vecRandBuf(rng, c.dim, 0, 1.5).s()
			want := refRMSNorm(vecClone(x.s()), w, c.heads, 1e-6)
			RMSNormHeads(x.s(), w, c.dim, 1e-6)
			checkNorm(t, "RMSNormHeads("+itoa(c.heads)+"x"+itoa(c.dim)+")", x.s(), want)
			x.check(t, "RMSNormHeads")
		}
	})
}

func TestRMSNormAllocs(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		x, w, out := make([]float32, 2*1024), make([]float32, 1024), make([]float32, 2*1024)
		if a := testing.AllocsPerRun(20, func() { RMSNorm(out, x, w, 2, 1e-6) }); a != 0 {
			t.Fatalf("RMSNorm allocates %v times per call", a)
		}
		if a := testing.AllocsPerRun(20, func() { RMSNormHeads(x, w[:128], 128, 1e-6) }); a != 0 {
			t.Fatalf("RMSNormHeads allocates %v times per call", a)
		}
	})
}

func TestRMSNormShapePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"RMSNorm short x":     func() { RMSNorm(make([]float32, 8), make([]float32, 7), make([]float32, 4), 2, 1e-6) },
		"RMSNorm short out":   func() { RMSNorm(make([]float32, 7), make([]float32, 8), make([]float32, 4), 2, 1e-6) },
		"RMSNormHeads ragged": func() { RMSNormHeads(make([]float32, 130), make([]float32, 128), 128, 1e-6) },
		"RMSNormHeads w":      func() { RMSNormHeads(make([]float32, 256), make([]float32, 64), 128, 1e-6) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); len(s) < 11 || s[:11] != "omni: BUG: " {
					t.Errorf("%s: want an omni: BUG panic, got %q", name, s)
				}
			}()
			f()
		}()
	}
}
