package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// geluInputs returns a sweep: zeros, the clamp's edge, tiny, huge and
// infinite magnitudes, and random values of the scales a codec MLP sees.
func geluInputs() []float32 {
	r := rand.New(rand.NewPCG(3, 4))
	x := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5, 1, -1, 3, -3,
		6, -6, 13.5, -13.5, 14.142135, -14.142135, 14.2, -14.2, 20, -20, 1e30, -1e30,
		float32(math.Inf(1)), float32(math.Inf(-1))}
	for range 30000 {
		x = append(x, float32(r.NormFloat64()), float32(r.NormFloat64()*4), float32(r.Float64()*40-20))
	}
	return x
}

// TestGELU checks GELU at every level against float64 math.Erf
// (|error| ≤ 3e-7·|x|: erfcc's 1.2e-7 plus float32 steps), at every length
// and offset the tail mask sees, bit for bit against the generic level, and
// in place.
func TestGELU(t *testing.T) {
	x := geluInputs()
	ref := make([]float32, len(x))
	geluGeneric(ref, x)
	eachLevel(t, func(t *testing.T) {
		out := make([]float32, len(x))
		geluErf(out, x)
		for i, v := range x {
			f := float64(v)
			want := 0.5 * f * math.Erfc(-f/math.Sqrt2)
			if math.IsInf(f, -1) {
				want = math.Inf(-1) // −∞·Φ(−∞) is −∞·(a tiny float32), not 0
			}
			if d := math.Abs(float64(out[i]) - want); !(d <= 3e-7*math.Abs(f)) && !(math.IsInf(want, 0) && float64(out[i]) == want) {
				t.Fatalf("GELU(%v) = %v, want %v (error %.3g·|x|)", v, out[i], want, d/math.Abs(f))
			}
			if math.Float32bits(out[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("GELU(%v) = %v, the generic level gives %v", v, out[i], ref[i])
			}
		}
		for _, n := range []int{1, 7, 15, 16, 17, 31, 33} {
			for off := 0; off < 2; off++ {
				buf := make([]float32, n+off+1)
				buf[n+off] = 12345
				geluErf(buf[off:off+n], x[:n])
				for i := 0; i < n; i++ {
					if buf[off+i] != ref[i] {
						t.Fatalf("GELU(n=%d off=%d) [%d] = %v, want %v", n, off, i, buf[off+i], ref[i])
					}
				}
				if buf[n+off] != 12345 || (off == 1 && buf[0] != 0) {
					t.Fatalf("GELU(n=%d off=%d) wrote outside its output", n, off)
				}
			}
		}
		in := append([]float32(nil), x...)
		geluErf(in, in)
		for i := range in {
			if math.Float32bits(in[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("in place: GELU(%v) = %v, want %v", x[i], in[i], ref[i])
			}
		}
	})
}

// TestGELUWorstError reports the largest error of the generic steps over a
// dense sweep of [−15, 15] against float64 erfc, in units of |x| (the bound
// TestGELU and geluGeneric's doc state).
func TestGELUWorstError(t *testing.T) {
	var worst, at float64
	x := make([]float32, 1)
	out := make([]float32, 1)
	for v := float32(-15); v <= 15; v += 1.0 / 4096 {
		x[0] = v
		geluGeneric(out, x)
		f := float64(v)
		want := 0.5 * f * math.Erfc(-f/math.Sqrt2)
		if f != 0 {
			if e := math.Abs(float64(out[0])-want) / math.Abs(f); e > worst {
				worst, at = e, f
			}
		}
	}
	t.Logf("worst |error|/|x| = %.3g at x = %v", worst, at)
	if worst > 3e-7 {
		t.Errorf("worst |error|/|x| = %.3g at x = %v, want ≤ 3e-7", worst, at)
	}
}
