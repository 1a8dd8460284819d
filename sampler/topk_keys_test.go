package sampler

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKeyBitsIsSortable checks keyBits against sortable, and the order of
// keys against the order of values, on special values and random bits.
func TestKeyBitsIsSortable(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(1), math.Float32frombits(0x80000001), math.MaxFloat32, -math.MaxFloat32}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		if v := math.Float32frombits(r.Uint32()); v == v {
			vals = append(vals, v)
		}
	}
	for _, a := range vals {
		ka := keyBits(int64(int32(math.Float32bits(a))))
		if ka != keyOf(a) || valueOf(ka) != a || math.Float32bits(valueOf(ka)) != math.Float32bits(a) {
			t.Fatalf("keyBits(%v [%#x]) = %#x, sortable %#x", a, math.Float32bits(a), ka, keyOf(a))
		}
		for _, b := range vals[:40] {
			kb := keyOf(b)
			if a < b && ka >= kb || a > b && ka <= kb {
				t.Fatalf("keys of %v and %v: %#x, %#x out of order", a, b, ka, kb)
			}
			if got, want := keyAtLeast(b) <= ka, a >= b; got != want {
				t.Fatalf("keyAtLeast(%v) ≤ key of %v is %v, want %v", b, a, got, want)
			}
		}
	}
	if keyOf(float32(math.Inf(-1))) != keyNegInf || keyOf(float32(math.Inf(1))) != keyPosInf || keyOf(float32(math.Copysign(0, -1))) != keyNegZero {
		t.Fatal("key constants disagree with keyOf")
	}
}
