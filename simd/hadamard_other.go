//go:build !amd64 || !gc || purego

package simd

func hadamard64AVX512(x *float32, blocks int, scale float32) { noAsm() }
func hadamard64AVX2(x *float32, blocks int, scale float32)   { noAsm() }
