//go:build !amd64 || !gc || purego

package simd

func argminShiftedAVX512(norm, s *float32, n int, iota *[16]int32, best *[16]float32, idx *[16]int32) {
	noAsm()
}
