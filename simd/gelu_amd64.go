//go:build amd64 && gc && !purego

package simd

// geluAVX512 is geluGeneric on 16 floats at a time (n ≥ 1).
//
//go:noescape
func geluAVX512(out, x *float32, n int, c *[24]float32)
