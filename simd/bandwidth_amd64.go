//go:build amd64 && gc && !purego

package simd

import "unsafe"

// streamReadAVX512 and streamReadAVX2 sum n bytes (a multiple of 1024 and
// of 256) from p as 64-bit lanes, the AVX-512 one as four streams.

//go:noescape
func streamReadAVX512(p unsafe.Pointer, n int) uint64

//go:noescape
func streamReadAVX2(p unsafe.Pointer, n int) uint64
