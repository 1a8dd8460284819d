//go:build !amd64 || !gc || purego

package simd

func attnScoresAVX512(s, q, k *float32, nPos, stride, headDim int, scale float32) { noAsm() }
func attnScoresAVX2(s, q, k *float32, nPos, stride, headDim int, scale float32)   { noAsm() }
func attnValuesAVX512(out, p, v *float32, nPos, stride, headDim int)              { noAsm() }
func attnValuesAVX2(out, p, v *float32, nPos, stride, headDim int)                { noAsm() }
func attnScores2AVX512(sa, sb, q, k *float32, nPos, stride, headDim int, scale float32) {
	noAsm()
}
func attnValues2AVX512(oa, ob, pa, pb, v *float32, nPos, stride, headDim int) { noAsm() }
