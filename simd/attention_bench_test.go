package simd

import "testing"

// BenchmarkAttention runs one talker query token (16 query heads, 8 KV
// heads of 128) against nPos cached positions; bytes are the K and V rows
// read (each once per call).
func BenchmarkAttention(b *testing.B) {
	const nHeads, nKV, hd = 16, 8, 128
	benchLevels(b, []int{16, 256, 2048}, func(b *testing.B, nPos int) func() {
		q, k, v := attnInputs(1, nPos, nHeads, nKV, hd, 0)
		out, scratch := make([]float32, nHeads*hd), make([]float32, nPos*2)
		b.SetBytes(int64(nPos * nKV * hd * 4 * 2))
		return func() {
			Attention(out, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, scratch)
		}
	})
}

// BenchmarkAttentionKVHeadMajor is BenchmarkAttention on a head-major cache
// ([nKV][nPos][headDim]) through AttentionKV.
func BenchmarkAttentionKVHeadMajor(b *testing.B) {
	const nHeads, nKV, hd = 16, 8, 128
	benchLevels(b, []int{256, 2048}, func(b *testing.B, nPos int) func() {
		q, k, v := attnInputs(1, nPos, nHeads, nKV, hd, 0)
		out, scratch := make([]float32, nHeads*hd), make([]float32, nPos*2)
		b.SetBytes(int64(nPos * nKV * hd * 4 * 2))
		return func() {
			AttentionKV(out, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, nPos*hd, hd, 0.088, scratch, 0, nHeads)
		}
	})
}
