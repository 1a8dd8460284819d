//go:build amd64 && gc && !purego

package simd

//go:noescape
func siluMulAVX512(out, gate, up *float32, n int)

// siluMulAVX2 handles n a multiple of 8.
//
//go:noescape
func siluMulAVX2(out, gate, up *float32, n int)
