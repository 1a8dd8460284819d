package safetensors

import (
	"encoding/binary"
	"math"
)

// BF16FromF32 rounds f to bfloat16 (round to nearest, ties to even), as
// PyTorch's float32 → bfloat16 cast does; a NaN stays a (quiet) NaN.
func BF16FromF32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x0040
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToF32 widens a bfloat16 to float32 (exact).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F16ToF32 widens an IEEE half-precision value to float32 (exact, including
// subnormals, infinities and NaN).
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: value = man × 2^-24.
	v := float32(man) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// EncodeBF16 returns v as little-endian bfloat16 bytes (round to nearest
// even).
func EncodeBF16(v []float32) []byte {
	out := make([]byte, 2*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint16(out[2*i:], BF16FromF32(f))
	}
	return out
}

// EncodeF32 returns v as little-endian float32 bytes.
func EncodeF32(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// EncodeI64 returns v as little-endian int64 bytes.
func EncodeI64(v []int64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
	}
	return out
}

// EncodeI32 returns v as little-endian int32 bytes.
func EncodeI32(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}
