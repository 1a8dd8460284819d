package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBF16ToF32(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	dst := make([]float32, len(src)+1)
	dst[len(src)] = 7
	BF16ToF32(dst, src)
	for i, v := range src {
		if got, want := math.Float32bits(dst[i]), uint32(v)<<16; got != want {
			t.Fatalf("BF16ToF32(%#04x) = %#08x, want %#08x", v, got, want)
		}
	}
	if dst[len(src)] != 7 {
		t.Fatal("BF16ToF32 wrote past len(src)")
	}
}

// TestF16ToF32 checks every binary16 value against its definition:
// (-1)^s · 2^(e-15) · (1 + m/1024), or 2^-14 · m/1024 for e = 0.
func TestF16ToF32(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	dst := make([]float32, len(src))
	F16ToF32(dst, src)
	for i, h := range src {
		s, e, m := h>>15, int(h>>10&0x1f), float64(h&0x3ff)
		var want float64
		switch {
		case e == 0x1f && m == 0:
			want = math.Inf(1)
		case e == 0x1f:
			if !math.IsNaN(float64(dst[i])) || math.Float32bits(dst[i])>>31 != uint32(s) {
				t.Fatalf("F16ToF32(%#04x) = %v, want a NaN with sign %d", h, dst[i], s)
			}
			continue
		case e == 0:
			want = math.Ldexp(m/1024, -14)
		default:
			want = math.Ldexp(1+m/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if float64(dst[i]) != want || math.Signbit(float64(dst[i])) != (s == 1) {
			t.Fatalf("F16ToF32(%#04x) = %v, want %v", h, dst[i], want)
		}
	}
}

// TestToBF16Levels: rounding activations to bf16 (VCVTNEPS2BF16 where the
// level computes in bf16) gives, at every level, F32ToBF16's bits with
// denormals flushed to a zero of their sign.
func TestToBF16Levels(t *testing.T) {
	src := []float32{0, -0, 1, -1, 1.00390625, 1.01171875, 3.14159, -2.7e-38, 1e-40, -1e-40, 65504, 3e38, -3.3e38}
	r := rand.New(rand.NewPCG(61, 62))
	for len(src) < 1000 {
		src = append(src, float32(r.NormFloat64()*math.Pow(10, float64(r.IntN(9)-4))))
	}
	eachLevel(t, func(t *testing.T) {
		dst := make([]uint16, len(src))
		toBF16(Active(), dst, src)
		for i, v := range src {
			want := F32ToBF16(v)
			if b := math.Float32bits(v); b&0x7f800000 == 0 {
				want = uint16(b>>16) & 0x8000
			}
			if dst[i] != want {
				t.Fatalf("toBF16(%v) = %#04x, want %#04x", v, dst[i], want)
			}
		}
	})
}
