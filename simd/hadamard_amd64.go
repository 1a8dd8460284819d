//go:build amd64 && gc && !purego

package simd

// hadamard64AVX512 applies the width-64 Hadamard butterflies and the
// scaling to blocks consecutive 64-float blocks at x.
//
//go:noescape
func hadamard64AVX512(x *float32, blocks int, scale float32)

// hadamard64AVX2 is hadamard64AVX512 on 256-bit registers.
//
//go:noescape
func hadamard64AVX2(x *float32, blocks int, scale float32)
