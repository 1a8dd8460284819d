package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// eluInputs returns a sweep: zeros, values around the polynomial's and the
// clamp's edges, tiny, huge and infinite values, and random values.
func eluInputs() []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	x := []float32{0, float32(math.Copysign(0, -1)), -1e-30, -1e-8, -0.3465, -0.3466, -0.3467, -1, -2.5,
		-17, -17.4, -30, -86.9, -87, -88, -1e30, 1e-30, 1, 3.5, 1e30, float32(math.Inf(-1)), float32(math.Inf(1))}
	for range 20000 {
		x = append(x, float32(r.NormFloat64()*3), float32(-r.ExpFloat64()*8), float32(-r.Float64()*0.5))
	}
	return x
}

// TestELU checks ELU at every level against math.Expm1 (2 ulps: two
// roundings after the polynomial), at every length and offset the tail
// masks see, bit for bit against the generic level, and in place.
func TestELU(t *testing.T) {
	x := eluInputs()
	ref := make([]float32, len(x))
	eluGeneric(ref, x)
	eachLevel(t, func(t *testing.T) {
		out := make([]float32, len(x))
		ELU(out, x)
		for i, v := range x {
			want := float64(v)
			if v < 0 {
				want = math.Expm1(float64(v))
			}
			if d := math.Abs(float64(out[i]) - want); d > 2.4e-7*math.Abs(want) {
				t.Fatalf("ELU(%v) = %v, want %v", v, out[i], want)
			}
			if math.Float32bits(out[i]) != math.Float32bits(ref[i]) {
				t.Fatalf("ELU(%v) = %v, the generic level gives %v", v, out[i], ref[i])
			}
		}
		for _, n := range []int{1, 7, 15, 16, 17, 31, 33} {
			for off := 0; off < 2; off++ {
				buf := make([]float32, n+off+1)
				buf[n+off] = 12345
				ELU(buf[off:off+n], x[:n])
				for i := 0; i < n; i++ {
					if buf[off+i] != ref[i] {
						t.Fatalf("ELU(n=%d off=%d) [%d] = %v, want %v", n, off, i, buf[off+i], ref[i])
					}
				}
				if buf[n+off] != 12345 || (off == 1 && buf[0] != 0) {
					t.Fatalf("ELU(n=%d off=%d) wrote outside its output", n, off)
				}
			}
		}
		in := append([]float32(nil), x...)
		ELU(in, in)
		for i := range in {
			if in[i] != ref[i] {
				t.Fatalf("in place: ELU(%v) = %v, want %v", x[i], in[i], ref[i])
			}
		}
	})
}
