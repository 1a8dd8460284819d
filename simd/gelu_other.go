//go:build !amd64 || !gc || purego

package simd

func geluAVX512(out, x *float32, n int, c *[24]float32) { noAsm() }
