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

// bf16Value returns the float32 value of the bfloat16 bits u, exactly
// (subnormals kept; bf16Float reads them as VDPBF16PS does, as zero).
func bf16Value(u uint16) float32 { return math.Float32frombits(uint32(u) << 16) }

// bf16At reads a little-endian bf16 as float32, exactly.
func bf16At(b []byte) float32 {
	_ = b[1]
	return bf16Value(uint16(b[0]) | uint16(b[1])<<8)
}

// putBF16 writes the bf16 bits u little-endian at b.
func putBF16(b []byte, u uint16) {
	_ = b[1]
	b[0], b[1] = byte(u), byte(u>>8)
}

// bf16Up returns the bits of the smallest bf16 ≥ v (v finite and ≥ 0,
// far below bf16's largest value): the scale a block is coded for, so
// that raising a scale to bf16 never pushes a code past 127.5 steps.
func bf16Up(v float32) uint16 {
	u := math.Float32bits(v)
	if u&0xffff != 0 {
		u += 0x10000
	}
	return uint16(u >> 16)
}
