//go:build !amd64 || !gc || purego

package simd

func maxAVX512(x *float32, n int) float32               { noAsm(); return 0 }
func maxAVX2(x *float32, n int) float32                 { noAsm(); return 0 }
func expSubAVX512(x *float32, n int, m float32) float32 { noAsm(); return 0 }
func expSubAVX2(x *float32, n int, m float32) float32   { noAsm(); return 0 }
