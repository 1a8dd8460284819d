package sampler

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchRequests returns b seeded requests with the given top_k.
func benchRequests(tb testing.TB, b, vocab, topK int) []*Request {
	reqs := make([]*Request, b)
	for i := range reqs {
		p := DefaultParams()
		seed := int64(i)
		p.Seed, p.TopK, p.Temperature = &seed, topK, 0.9
		r, err := NewRequest(p, vocab, nil, nil)
		if err != nil {
			tb.Fatal(err)
		}
		reqs[i] = r
	}
	return reqs
}

func benchmarkSample(b *testing.B, vocab, batch, topK int) {
	s, err := New(Config{MaxBatch: batch, Vocab: vocab})
	if err != nil {
		b.Fatal(err)
	}
	reqs := benchRequests(b, batch, vocab, topK)
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, batch*vocab)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 2)
	}
	logits := make([]float32, len(src))
	out := make([]int32, batch)
	b.SetBytes(int64(4 * len(src)))
	b.ReportAllocs()
	for b.Loop() {
		copy(logits, src)
		if err := s.Sample(logits, reqs, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*batch), "us/row")
}

func BenchmarkSampleV3072B8TopK50(b *testing.B) { benchmarkSample(b, 3072, 8, 50) }
func BenchmarkSampleV2048B8TopK50(b *testing.B) { benchmarkSample(b, 2048, 8, 50) }
func BenchmarkSampleV3072B8NoTopK(b *testing.B) { benchmarkSample(b, 3072, 8, 0) }

// BenchmarkGeneratorAdvance is the floor: advancing one generator by V=3072
// elements (6144 words).
func BenchmarkGeneratorAdvance(b *testing.B) {
	g := NewGenerator(1)
	for b.Loop() {
		g.Advance(3072)
	}
}

// BenchmarkExponentialFull draws all 3072 values (what torch computes).
func BenchmarkExponentialFull(b *testing.B) {
	g := NewGenerator(1)
	q := make([]float32, 3072)
	for b.Loop() {
		g.Exponential(q)
	}
}

// BenchmarkTopKFast is the top-k selection alone (V=3072, k=50, T=0.9) on
// 16 rows of N(0, 2²) logits, cycled.
func BenchmarkTopKFast(b *testing.B) { benchmarkTopKFast(b, 3072, 0) }

// BenchmarkTopKFastV2048 is BenchmarkTopKFast with V=2048 (the code
// predictor's row).
func BenchmarkTopKFastV2048(b *testing.B) { benchmarkTopKFast(b, 2048, 0) }

// BenchmarkTopKFastMasked is BenchmarkTopKFast with the last third of each
// row at -inf, as the talker masks its row.
func BenchmarkTopKFastMasked(b *testing.B) { benchmarkTopKFast(b, 3072, 1024) }

func benchmarkTopKFast(b *testing.B, vocab, masked int) {
	const rows = 16
	s, err := New(Config{MaxBatch: 1, Vocab: vocab})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, rows*vocab)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 2)
		if i%vocab >= vocab-masked {
			src[i] = float32(math.Inf(-1))
		}
	}
	x := make([]float32, vocab)
	b.SetBytes(int64(4 * vocab))
	i := 0
	for b.Loop() {
		copy(x, src[(i%rows)*vocab:])
		i++
		if _, _, ok := s.topKFast(x, 50, 0.9); !ok {
			b.Fatal("degenerate row")
		}
	}
}
