//go:build amd64 && gc && !purego

package simd

//go:noescape
func maxAVX512(x *float32, n int) float32

//go:noescape
func maxAVX2(x *float32, n int) float32

//go:noescape
func expSubAVX512(x *float32, n int, m float32) float32

// expSubAVX2 handles n a multiple of 8.
//
//go:noescape
func expSubAVX2(x *float32, n int, m float32) float32
