//go:build amd64 && gc && !purego

package simd

// attnScoresAVX512 sets s[p] = (q · k[p·stride:]) * scale for p < nPos;
// headDim is a multiple of 16, stride is in floats.
//
//go:noescape
func attnScoresAVX512(s, q, k *float32, nPos, stride, headDim int, scale float32)

// attnScoresAVX2 is attnScoresAVX512 for headDim a multiple of 8.
//
//go:noescape
func attnScoresAVX2(s, q, k *float32, nPos, stride, headDim int, scale float32)

// attnValuesAVX512 adds Σ_p p[p]·v[p·stride+d] to out[d] for d < headDim
// (a multiple of 16) and nPos ≥ 1.
//
//go:noescape
func attnValuesAVX512(out, p, v *float32, nPos, stride, headDim int)

// attnValuesAVX2 is attnValuesAVX512 for headDim a multiple of 8.
//
//go:noescape
func attnValuesAVX2(out, p, v *float32, nPos, stride, headDim int)

// attnScores2AVX512 is attnScoresAVX512 for two query heads of one KV
// group at once (q: both heads, 2·headDim floats; scores to sa and sb),
// each K vector loaded once for both; the same bits per head.
//
//go:noescape
func attnScores2AVX512(sa, sb, q, k *float32, nPos, stride, headDim int, scale float32)

// attnValues2AVX512 is attnValuesAVX512 for two heads sharing v (into oa
// with pa, into ob with pb), each V vector loaded once for both; headDim a
// multiple of 128; the same bits per head.
//
//go:noescape
func attnValues2AVX512(oa, ob, pa, pb, v *float32, nPos, stride, headDim int)
