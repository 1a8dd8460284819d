package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSin32AgainstMathSin measures sin32 against math.Sin over a wide
// range of float32 arguments: the polynomial's own error (4.6e-9) plus
// float32 rounding of r and the result.
func TestSin32AgainstMathSin(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var worst, worstZ float64
	for i := 0; i < 2_000_000; i++ {
		// log-uniform magnitudes 1e-6 .. 65536, both signs
		z := float32(math.Exp(r.Float64()*math.Log(65536/1e-6)) * 1e-6)
		if i%2 == 1 {
			z = -z
		}
		if d := math.Abs(float64(sin32(z)) - math.Sin(float64(z))); d > worst {
			worst, worstZ = d, float64(z)
		}
	}
	t.Logf("max |sin32(z) − sin(z)| = %.3g at z = %v (|z| ≤ 65536)", worst, worstZ)
	if worst > 1.2e-7 {
		t.Errorf("max |sin32(z) − sin(z)| = %.3g at z = %v, want ≤ 1.2e-7", worst, worstZ)
	}
	for _, z := range []float32{0, float32(math.Pi), -float32(math.Pi / 2), 1e6, 3e7} {
		if d := math.Abs(float64(sin32(z)) - math.Sin(float64(z))); d > 1.2e-7 {
			t.Errorf("sin32(%v) = %v, want %v", z, sin32(z), math.Sin(float64(z)))
		}
	}
}

// refSnake is SnakeBeta in float64 from its definition.
func refSnake(x, a, inv float32) float64 {
	s := math.Sin(float64(float32(x * a)))
	return float64(x) + float64(inv)*s*s
}

// TestSnakeBetaLevels checks every level against the float64 definition
// (on the float32 argument x·a, as PyTorch forms it): |Δ| ≤ ulp-scale
// rounding of x plus inv·2.5e-7 (sin²'s error).
func TestSnakeBetaLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{1, 7, 8, 9, 96, 101} {
		m := 5
		a, inv := make([]float32, n), make([]float32, n)
		for c := range a {
			a[c] = float32(math.Exp(r.NormFloat64()))
			inv[c] = float32(1 / (math.Exp(r.NormFloat64()) + 1e-9))
		}
		x := randVec(r, m*n, 5)
		x[0] = 70000 // beyond the assembly's float32 reduction: the row is redone
		if n > 3 {
			x[n+2] = float32(math.NaN())
		}
		xc := append([]float32(nil), x...)
		eachLevel(t, func(t *testing.T) {
			out := make([]float32, m*n+2)
			SnakeBeta(out[1:m*n+1], x, m, a, inv)
			for i := range x {
				if x[i] != xc[i] && !math.IsNaN(float64(x[i])) {
					t.Fatalf("input modified")
				}
			}
			if out[0] != 0 || out[m*n+1] != 0 {
				t.Fatalf("guard overwritten")
			}
			for i, v := range x {
				c := i % n
				want := refSnake(v, a[c], inv[c])
				got := out[1+i]
				if math.IsNaN(want) {
					if !math.IsNaN(float64(got)) {
						t.Errorf("n %d: SnakeBeta[%d] = %v, want NaN", n, i, got)
					}
					continue
				}
				tol := 2*math.Abs(want)*0x1p-24 + float64(inv[c])*2.5e-7
				if d := math.Abs(float64(got) - want); d > tol {
					t.Errorf("n %d: SnakeBeta[%d](x %v a %v inv %v) = %v, want %v (|Δ| %.3g > %.3g)", n, i, v, a[c], inv[c], got, want, d, tol)
				}
			}
		})
	}
}

// TestSnakeBetaSinSquaredWideRange isolates sin² at every level: with x =
// 2⁻²⁰ and a = z·2²⁰ (exact), out − x = sin²(z) to the rounding of out.
// Measured max |Δ| over |z| ≤ 65536 is logged.
func TestSnakeBetaSinSquaredWideRange(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	n := 1 << 16
	a, inv, x := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		z := float32(math.Exp(r.Float64()*math.Log(65536/1e-3)) * 1e-3)
		if i%2 == 1 {
			z = -z
		}
		a[i], inv[i], x[i] = z*(1<<20), 1, 1.0/(1<<20)
	}
	eachLevel(t, func(t *testing.T) {
		out := make([]float32, n)
		SnakeBeta(out, x, 1, a, inv)
		var worst float64
		for i := range out {
			s := math.Sin(float64(a[i] / (1 << 20)))
			d := math.Abs(float64(out[i]) - float64(x[i]) - s*s)
			worst = math.Max(worst, d)
		}
		t.Logf("max |sin² − sin²(z)| = %.3g over |z| ≤ 65536", worst)
		if worst > 2.5e-7 {
			t.Errorf("max |sin² error| = %.3g, want ≤ 2.5e-7", worst)
		}
	})
}

// TestSnakeBetaAVX512BitsAVX2: the AVX-512 kernel runs the AVX2 kernel's
// operations lane for lane (16 channels a step, the last 8 under a mask), so
// both levels give the same bits, rows redone in float64 included.
func TestSnakeBetaAVX512BitsAVX2(t *testing.T) {
	if why := LevelSkip(AVX512VNNI); why != "" {
		t.Skip(why)
	}
	r := rand.New(rand.NewPCG(27, 28))
	for _, n := range []int{8, 9, 16, 24, 40, 96, 101, 1536} {
		m := 7
		a, inv := make([]float32, n), make([]float32, n)
		for c := range a {
			a[c] = float32(math.Exp(r.NormFloat64()))
			inv[c] = float32(1 / (math.Exp(r.NormFloat64()) + 1e-9))
		}
		x := randVec(r, m*n, 5)
		x[n+n/2] = 70000
		o2, o5 := make([]float32, m*n), make([]float32, m*n)
		snakeRows(AVX2, o2, x, m, a, inv)
		snakeRows(AVX512VNNI, o5, x, m, a, inv)
		for i := range o2 {
			if math.Float32bits(o2[i]) != math.Float32bits(o5[i]) {
				t.Fatalf("n %d: [%d] AVX-512 %v, AVX2 %v", n, i, o5[i], o2[i])
			}
		}
	}
}
