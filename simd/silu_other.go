//go:build !amd64 || !gc || purego

package simd

func siluMulAVX512(out, gate, up *float32, n int) { noAsm() }
func siluMulAVX2(out, gate, up *float32, n int)   { noAsm() }
