package simd

import "testing"

// BenchmarkRopeApply rotates one token's 16 query heads of 128 (plain Go at
// every level).
func BenchmarkRopeApply(b *testing.B) {
	r, err := NewRope(128, 1e6, 4096)
	if err != nil {
		b.Fatal(err)
	}
	x := vecRandBuf(vecRNG(1), 16*128, 0, 1).s()
	b.SetBytes(int64(8 * len(x)))
	for b.Loop() {
		r.Apply(x, 16, 4000)
	}
}
