package sampler

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"
)

// TestTopKBlockPrePass checks the top-k fast path on rows long enough for
// the block pre-pass (blocks(V) ≥ 4k) against the plain definition: divide
// the row by T in float32, the threshold is the k-th largest divided value
// counting duplicates, and the survivors are every index whose divided
// value is ≥ it and not -inf. Rows carry exact ties, neighbouring floats
// that collide only after division, -inf runs and a length not a multiple
// of the block.
func TestTopKBlockPrePass(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for trial := 0; trial < 300; trial++ {
		vocab := 64 + rng.Intn(3100)
		k := 1 + rng.Intn(blocks(vocab)/4)
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

// TestBlockKeys checks blockKeys (the WASI or the native form, whichever
// this build has) against the builtin max per block: keys, the largest key
// and the NaN verdict, for lengths around whole blocks and four-block
// groups, with NaNs of either sign, ±0, ±inf and subnormals.
func TestBlockKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(1), math.Float32frombits(0x80000001), math.MaxFloat32, -math.MaxFloat32}
	nans := []float32{float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001), math.Float32frombits(0xffffffff)}
	for v := 1; v <= 100; v++ {
		for trial := 0; trial < 20; trial++ {
			x := make([]float32, v)
			for i := range x {
				if rng.Intn(4) == 0 {
					x[i] = specials[rng.Intn(len(specials))]
				} else {
					x[i] = float32(rng.NormFloat64())
				}
			}
			wantNaN := trial%4 == 0
			if wantNaN {
				x[rng.Intn(v)] = nans[rng.Intn(len(nans))]
			}
			bk := make([]uint32, blocks(v))
			nan, top := blockKeys(x, bk)
			if nan != wantNaN {
				t.Fatalf("V %d trial %d: nan %v, want %v", v, trial, nan, wantNaN)
			}
			if nan {
				continue
			}
			wantTop := int64(keyNegInf)
			for b := range bk {
				m := float32(math.Inf(-1))
				for _, e := range x[b*blockLen : min((b+1)*blockLen, v)] {
					m = max(m, e)
				}
				if want := keyOf(m); int64(bk[b]) != want {
					t.Fatalf("V %d trial %d: block %d key %#x, want %#x (%v)", v, trial, b, bk[b], want, m)
				}
				wantTop = max(wantTop, keyOf(m))
			}
			if top != wantTop {
				t.Fatalf("V %d trial %d: top %#x, want %#x", v, trial, top, wantTop)
			}
		}
	}
}
