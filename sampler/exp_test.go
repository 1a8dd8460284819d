package sampler

import (
	"math"
	"math/rand"
	"testing"
)

// TestExp32 checks exp32 against math.Exp rounded to float32: equal except,
// rarely, by one ulp (when math.Exp itself is within an ulp of a float32
// rounding boundary).
func TestExp32(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	off := 0
	const n = 200000
	for i := 0; i < n; i++ {
		x := float32(-rng.Float64() * 110)
		if i%4 == 0 {
			x = float32(rng.Float64()*20 - 10)
		}
		got, want := exp32(x), float32(math.Exp(float64(x)))
		if got == want {
			continue
		}
		d := int64(math.Float32bits(got)) - int64(math.Float32bits(want))
		if d > 1 || d < -1 {
			t.Fatalf("exp32(%v) = %v, want %v", x, got, want)
		}
		off++
	}
	if off > n/10000 {
		t.Errorf("exp32 differs from float32(math.Exp) by an ulp in %d of %d cases", off, n)
	}
	for _, c := range []struct{ in, want float32 }{
		{0, 1}, {float32(math.Inf(-1)), 0}, {-200, 0}, {float32(math.Inf(1)), float32(math.Inf(1))},
	} {
		if got := exp32(c.in); got != c.want {
			t.Errorf("exp32(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if v := exp32(float32(math.NaN())); v == v {
		t.Errorf("exp32(NaN) = %v", v)
	}
}
