//go:build amd64 && gc && !purego

package simd

//go:noescape
func eluAVX512(out, x *float32, n int, c *[12]float32)
