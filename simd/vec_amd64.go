//go:build amd64 && gc && !purego

package simd

//go:noescape
func addAVX512(dst, x *float32, n int)

//go:noescape
func addAVX2(dst, x *float32, n int)

//go:noescape
func scaleAVX512(x *float32, n int, alpha float32)

//go:noescape
func scaleAVX2(x *float32, n int, alpha float32)

//go:noescape
func axpyAVX512(y, x *float32, n int, alpha float32)

//go:noescape
func axpyAVX2(y, x *float32, n int, alpha float32)

//go:noescape
func dotAVX512(x, y *float32, n int) float32

//go:noescape
func dotAVX2(x, y *float32, n int) float32
