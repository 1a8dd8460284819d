//go:build !amd64 || !gc || purego

package simd

func statsColsAVX512(l, x *float32, m, stride, ncols int, s *[48]float64) { noAsm() }
