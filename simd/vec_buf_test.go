package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vecGuardBits fills the guard bands around test outputs: a NaN with a payload
// no kernel produces.
const vecGuardBits = 0x7fc0dead

const vecGuardLen = 19

// vecBuf is a float32 slice of length n that starts off elements into a
// buffer and is followed by vecGuardLen guard elements.
type vecBuf struct {
	buf []float32
	off int
	n   int
}

func newVecBuf(n, off int) *vecBuf {
	g := &vecBuf{buf: make([]float32, off+n+vecGuardLen), off: off, n: n}
	for i := range g.buf {
		g.buf[i] = math.Float32frombits(vecGuardBits)
	}
	return g
}

// s returns the slice under test, capped so appends cannot reach the guards.
func (g *vecBuf) s() []float32 { return g.buf[g.off : g.off+g.n : g.off+g.n] }

// check reports a write outside the slice.
func (g *vecBuf) check(t testing.TB, what string) {
	t.Helper()
	for i, v := range g.buf {
		if i >= g.off && i < g.off+g.n {
			continue
		}
		if math.Float32bits(v) != vecGuardBits {
			t.Fatalf("%s: guard element %d (slice is [%d,%d)) overwritten with %v", what, i, g.off, g.off+g.n, v)
		}
	}
}

// vecRandBuf returns n values uniform in [-scale, scale) at offset off of a
// vecBuf buffer.
func vecRandBuf(rng *rand.Rand, n, off int, scale float32) *vecBuf {
	g := newVecBuf(n, off)
	s := g.s()
	for i := range s {
		s[i] = (rng.Float32()*2 - 1) * scale
	}
	return g
}

func vecRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// vecSizes are the lengths the element-wise tests sweep: empty, primes and
// register widths ±1 for both 8- and 16-lane code, and the model's widths.
var vecSizes = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 1024, 2048, 3072}

// vecClose reports whether got is within tol of want relative to mag (the
// magnitude the error scales with, e.g. Σ|xᵢyᵢ| for a dot product), plus an
// absolute floor abs for results that underflow.
func vecClose(got, want, mag, tol, abs float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*mag+abs
}

func vecClone(s []float32) []float32 { return append([]float32(nil), s...) }

func vecFirstDiff(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}
