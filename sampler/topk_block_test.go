package sampler

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"
)

// TestTopKBlockPrePass checks the top-k fast path on rows long enough for
// the block pre-pass (blocks(V) ≥ 2k) against the plain definition: divide
// the row by T in float32, the threshold is the k-th largest divided value
// counting duplicates, and the survivors are every index whose divided
// value is ≥ it and not -inf. Rows carry exact ties, neighbouring floats
// that collide only after division, -inf runs and a length not a multiple
// of the block.
func TestTopKBlockPrePass(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for trial := 0; trial < 300; trial++ {
		vocab := 64 + rng.Intn(3100)
		k := 1 + rng.Intn(blocks(vocab)/2)
		temp := []float32{1, 0.01, 0.37, 0.9, 1.7, 3}[rng.Intn(6)]
		x := make([]float32, vocab)
		levels := 1 + rng.Intn(40)
		for i := range x {
			switch rng.Intn(12) {
			case 0:
				x[i] = float32(math.Inf(-1))
			case 1:
				x[i] = math.Float32frombits(math.Float32bits(1.5) + uint32(rng.Intn(6)))
			case 2:
				x[i] = float32(rng.Intn(levels)) / float32(levels) * 4
			default:
				x[i] = float32(rng.NormFloat64() * 2)
			}
		}
		if rng.Intn(4) == 0 { // a long -inf run covering whole blocks
			lo := rng.Intn(vocab)
			for i := lo; i < min(vocab, lo+rng.Intn(vocab)); i++ {
				x[i] = float32(math.Inf(-1))
			}
		}
		y := make([]float32, vocab)
		for i, v := range x {
			y[i] = v / temp
		}
		sorted := slices.Clone(y)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a] > sorted[b] })
		thr, wantMax := sorted[k-1], sorted[0]
		var want []int32
		for i, v := range y {
			if v >= thr && !math.IsInf(float64(v), -1) {
				want = append(want, int32(i))
			}
		}
		s, _ := New(Config{MaxBatch: 1, Vocab: vocab})
		xx := slices.Clone(x)
		surv, gotMax, ok := s.topKFast(xx, k, temp)
		if math.IsInf(float64(wantMax), 0) {
			if ok {
				t.Fatalf("trial %d: row with divided max %v not reported degenerate", trial, wantMax)
			}
			continue
		}
		if !ok {
			t.Fatalf("trial %d (V %d k %d T %v): finite row reported degenerate", trial, vocab, k, temp)
		}
		if gotMax != wantMax {
			t.Fatalf("trial %d: max %v, want %v", trial, gotMax, wantMax)
		}
		if !slices.Equal(surv, want) {
			t.Fatalf("trial %d (V %d k %d T %v): %d survivors %v, want %d %v", trial, vocab, k, temp, len(surv), surv, len(want), want)
		}
		for _, id := range surv {
			if xx[id] != y[id] {
				t.Fatalf("trial %d: survivor %d holds %v, want divided %v", trial, id, xx[id], y[id])
			}
		}
	}
}

// TestTopKBlockPrePassNonFinite: on a row long enough for the block
// pre-pass, a NaN anywhere (also in the short last block) or a +inf makes
// the row degenerate, as in torch (all-NaN softmax, token 0).
func TestTopKBlockPrePassNonFinite(t *testing.T) {
	const vocab = 1000 // 62 full blocks and a last block of 8
	for _, pos := range []int{0, 17, 991, 999} {
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
			x := make([]float32, vocab)
			for i := range x {
				x[i] = float32(i % 37)
			}
			x[pos] = bad
			s, _ := New(Config{MaxBatch: 1, Vocab: vocab})
			if _, _, ok := s.topKFast(x, 5, 0.9); ok {
				t.Errorf("%v at %d: row not reported degenerate", bad, pos)
			}
		}
	}
}
