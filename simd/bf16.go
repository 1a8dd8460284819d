package simd

import (
	"fmt"
	"math"
)

// BF16ToF32 converts bfloat16 values (the top 16 bits of a float32) to
// float32 exactly:
//
//	for i, v := range src { dst[i] = math.Float32frombits(uint32(v) << 16) }
func BF16ToF32(dst []float32, src []uint16) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("simd: BF16ToF32: len(dst) %d < len(src) %d", len(dst), len(src)))
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = math.Float32frombits(uint32(v) << 16)
	}
}

// F16ToF32 converts IEEE 754 binary16 values to float32 exactly
// (subnormals, ±Inf and NaN included; a NaN keeps its sign and payload).
func F16ToF32(dst []float32, src []uint16) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("simd: F16ToF32: len(dst) %d < len(src) %d", len(dst), len(src)))
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = math.Float32frombits(f16Bits(v))
	}
}

// f16Bits returns the float32 bit pattern equal to the binary16 value h.
func f16Bits(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // Inf or NaN
		return sign | 0x7f800000 | man<<13
	case exp != 0: // normal
		return sign | (exp+112)<<23 | man<<13
	case man == 0: // ±0
		return sign
	}
	// subnormal: value man·2⁻²⁴; normalize
	e := uint32(113)
	for man&0x400 == 0 {
		man <<= 1
		e--
	}
	return sign | e<<23 | (man&0x3ff)<<13
}
