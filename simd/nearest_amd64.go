//go:build amd64 && gc && !purego

package simd

// argminShiftedAVX512 is ArgminShifted's kernel (n ≥ 1): per lane, the
// smallest norm − 2·s and its first index, into best and idx.
//
//go:noescape
func argminShiftedAVX512(norm, s *float32, n int, iota *[16]int32, best *[16]float32, idx *[16]int32)
