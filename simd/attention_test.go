package simd

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// refAttention is the definition in float64: per head, softmax(q·k·scale)
// over positions, then Σ p·v. It also returns, per output element, the
// magnitude Σ p·|v| the float32 error scales with.
func refAttention(q, k, v []float32, nPos, nHeads, nKV, hd int, scale float32) (out, mag []float64) {
	out, mag = make([]float64, nHeads*hd), make([]float64, nHeads*hd)
	stride := nKV * hd
	for h := range nHeads {
		g := h / (nHeads / nKV)
		s := make([]float64, nPos)
		m := math.Inf(-1)
		for p := range nPos {
			var d float64
			for i := range hd {
				d += float64(q[h*hd+i]) * float64(k[p*stride+g*hd+i])
			}
			s[p] = d * float64(scale)
			m = math.Max(m, s[p])
		}
		var sum float64
		for p := range s {
			s[p] = math.Exp(s[p] - m)
			sum += s[p]
		}
		for p := range s {
			w := s[p] / sum
			for i := range hd {
				x := float64(v[p*stride+g*hd+i])
				out[h*hd+i] += w * x
				mag[h*hd+i] += w * math.Abs(x)
			}
		}
	}
	return out, mag
}

const attnTol = 1e-5

type attnCase struct{ nHeads, nKV, hd int }

var attnCases = []attnCase{{16, 8, 128}, {4, 2, 128}, {2, 1, 128}, {8, 8, 128}, {4, 2, 64}, {2, 1, 16}, {2, 2, 8}, {3, 1, 24}, {2, 1, 5}}

var attnPositions = []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 255, 300}

// attnInputs returns q and a KV cache with extra rows (beyond nPos) filled
// with NaN: a kernel reading past nPos would poison its output.
func attnInputs(seed uint64, nPos, nHeads, nKV, hd, off int) (q, k, v *vecBuf) {
	rng := vecRNG(seed)
	q = vecRandBuf(rng, nHeads*hd, off, 1)
	const extra = 3
	k = vecRandBuf(rng, (nPos+extra)*nKV*hd, off, 1)
	v = vecRandBuf(rng, (nPos+extra)*nKV*hd, 1-off, 2)
	for i := nPos * nKV * hd; i < (nPos+extra)*nKV*hd; i++ {
		k.s()[i], v.s()[i] = float32(math.NaN()), float32(math.NaN())
	}
	return q, k, v
}

func TestAttention(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for ci, c := range attnCases {
			for _, nPos := range attnPositions {
				if c.hd < 128 && nPos > 64 && nPos != 255 {
					continue // keep the small-width sweep short
				}
				off := (ci + nPos) % 2
				q, k, v := attnInputs(uint64(100*ci+nPos), nPos, c.nHeads, c.nKV, c.hd, off)
				scale := float32(1 / math.Sqrt(float64(c.hd)))
				out := newVecBuf(c.nHeads*c.hd, off)
				scratch := make([]float32, nPos*c.nHeads)
				q0, k0, v0 := vecClone(q.s()), vecClone(k.s()), vecClone(v.s())
				Attention(out.s(), q.s(), k.s(), v.s(), nPos, c.nHeads, c.nKV, c.hd, scale, scratch)
				want, mag := refAttention(q0, k0, v0, nPos, c.nHeads, c.nKV, c.hd, scale)
				name := fmt.Sprintf("Attention(%d/%d heads of %d, nPos %d, off %d)", c.nHeads, c.nKV, c.hd, nPos, off)
				for i, w := range want {
					if !vecClose(float64(out.s()[i]), w, mag[i], attnTol, 0) {
						t.Fatalf("%s head %d elem %d = %v, want %v", name, i/c.hd, i%c.hd, out.s()[i], w)
					}
				}
				if vecFirstDiff(q.s(), q0) >= 0 || vecFirstDiff(k.s(), k0) >= 0 || vecFirstDiff(v.s(), v0) >= 0 {
					t.Fatalf("%s modified its inputs", name)
				}
				out.check(t, name)
			}
		}
	})
}

// TestAttentionWorked checks two positions whose scores are 0 and ln 3, so
// the probabilities are exactly 1/4 and 3/4.
func TestAttentionWorked(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		const hd = 16
		q, k, v := make([]float32, hd), make([]float32, 2*hd), make([]float32, 2*hd)
		q[0] = 1
		k[hd] = float32(math.Log(3)) * 4 // scale 0.25
		for i := range hd {
			v[i], v[hd+i] = 4, float32(8+i)
		}
		out, scratch := make([]float32, hd), make([]float32, 2)
		Attention(out, q, k, v, 2, 1, 1, hd, 0.25, scratch)
		for i := range hd {
			if want := 0.25*4 + 0.75*float64(8+i); math.Abs(float64(out[i])-want) > 2e-6*want {
				t.Fatalf("Attention worked example elem %d = %v, want %v", i, out[i], want)
			}
		}
	})
}

func TestAttentionHeadsSplit(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		const nPos, nHeads, nKV, hd = 37, 16, 8, 128
		q, k, v := attnInputs(7, nPos, nHeads, nKV, hd, 0)
		whole := make([]float32, nHeads*hd)
		Attention(whole, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, make([]float32, nPos*nHeads))
		for _, split := range [][]int{{0, 16}, {0, 8, 16}, {0, 1, 2, 5, 16}, {0, 3, 3, 11, 16}} {
			out := make([]float32, nHeads*hd)
			for i := range out {
				out[i] = math.Float32frombits(vecGuardBits)
			}
			for i := 0; i+1 < len(split); i++ {
				h0, h1 := split[i], split[i+1]
				scratch := make([]float32, AttentionScratch(nPos, nHeads, nKV, h0, h1))
				AttentionHeads(out, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, scratch, h0, h1)
				for j := h1 * hd; j < len(out); j++ {
					if math.Float32bits(out[j]) != vecGuardBits {
						t.Fatalf("AttentionHeads [%d,%d) wrote element %d of head %d", h0, h1, j, j/hd)
					}
				}
			}
			if i := vecFirstDiff(out, whole); i >= 0 {
				t.Fatalf("AttentionHeads split %v head %d elem %d = %v, whole Attention %v", split, i/hd, i%hd, out[i], whole[i])
			}
		}
	})
}

func TestAttentionAllocs(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		const nPos, nHeads, nKV, hd = 50, 16, 8, 128
		q, k, v := attnInputs(8, nPos, nHeads, nKV, hd, 0)
		out, scratch := make([]float32, nHeads*hd), make([]float32, nPos*2)
		if a := testing.AllocsPerRun(10, func() {
			Attention(out, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, scratch)
		}); a != 0 {
			t.Fatalf("Attention allocates %v times per call", a)
		}
	})
}

func TestAttentionShapePanics(t *testing.T) {
	q, out := make([]float32, 4*8), make([]float32, 4*8)
	kv := make([]float32, 3*2*8)
	s := make([]float32, 3*2)
	for name, f := range map[string]func(){
		"nHeads % nKV": func() { Attention(out, q, kv, kv, 3, 4, 3, 8, 1, s) },
		"nPos 0":       func() { Attention(out, q, kv, kv, 0, 4, 2, 8, 1, s) },
		"short k":      func() { Attention(out, q, kv[:40], kv, 3, 4, 2, 8, 1, s) },
		"short q":      func() { Attention(out, q[:31], kv, kv, 3, 4, 2, 8, 1, s) },
		"scratch":      func() { Attention(out, q, kv, kv, 3, 4, 2, 8, 1, s[:5]) },
		"heads":        func() { AttentionHeads(out, q, kv, kv, 3, 4, 2, 8, 1, s, 2, 5) },
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "omni: BUG: ") {
					t.Errorf("Attention with bad %s: want an omni: BUG panic, got %q", name, r)
				}
			}()
			f()
		}()
	}
}

// TestAttentionScoresIndependentOfNPos checks the documented property of the
// assembly score kernels: a position's score is the same bits whether it is
// computed in a group of eight or in the remainder loop.
func TestAttentionScoresIndependentOfNPos(t *testing.T) {
	const nKV, hd = 2, 128
	rng := vecRNG(9)
	q := vecRandBuf(rng, hd, 0, 1).s()
	k := vecRandBuf(rng, 24*nKV*hd, 0, 1).s()
	eachLevel(t, func(t *testing.T) {
		l := Active()
		if l == Generic {
			t.Skip("generic has no separate score kernel")
		}
		scores := func(nPos int) []float32 {
			s := make([]float32, nPos)
			if l == AVX512VNNI {
				attnScoresAVX512(&s[0], &q[0], &k[0], nPos, nKV*hd, hd, 0.088)
			} else {
				attnScoresAVX2(&s[0], &q[0], &k[0], nPos, nKV*hd, hd, 0.088)
			}
			return s
		}
		all := scores(24)
		for _, n := range []int{1, 5, 8, 9, 15, 16, 17, 23} {
			if i := vecFirstDiff(scores(n), all[:n]); i >= 0 {
				t.Errorf("%s: score of position %d with nPos %d differs from nPos 24", l, i, n)
			}
		}
	})
}

// TestAttentionHeadsConcurrent runs disjoint head ranges on separate
// goroutines, each with its own scratch, as the engine's threads do (run it
// under -race); the result must equal one whole-call Attention.
func TestAttentionHeadsConcurrent(t *testing.T) {
	const nPos, nHeads, nKV, hd = 70, 16, 8, 128
	q, k, v := attnInputs(11, nPos, nHeads, nKV, hd, 0)
	want := make([]float32, nHeads*hd)
	Attention(want, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, make([]float32, nPos*nHeads))
	for range 20 {
		out := make([]float32, nHeads*hd)
		done := make(chan struct{})
		for w := range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				h0, h1 := 4*w, 4*w+4
				scratch := make([]float32, AttentionScratch(nPos, nHeads, nKV, h0, h1))
				AttentionHeads(out, q.s(), k.s(), v.s(), nPos, nHeads, nKV, hd, 0.088, scratch, h0, h1)
			}()
		}
		for range 4 {
			<-done
		}
		if i := vecFirstDiff(out, want); i >= 0 {
			t.Fatalf("concurrent AttentionHeads head %d elem %d = %v, want %v", i/hd, i%hd, out[i], want[i])
		}
	}
}

// TestAttentionKVHeadMajor stores the same cache head-major
// ([nKV][maxPos][headDim], with spare positions) and checks AttentionKV gives
// exactly Attention's result on the [pos][nKV][headDim] cache.
func TestAttentionKVHeadMajor(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, c := range []attnCase{{16, 8, 128}, {4, 2, 64}, {2, 1, 24}, {3, 3, 5}} {
			for _, nPos := range []int{1, 9, 70} {
				const maxPos = 80
				q, k, v := attnInputs(uint64(nPos), nPos, c.nHeads, c.nKV, c.hd, 1)
				hk, hv := make([]float32, c.nKV*maxPos*c.hd), make([]float32, c.nKV*maxPos*c.hd)
				for i := range hk {
					hk[i], hv[i] = float32(math.NaN()), float32(math.NaN()) // unused rows poison
				}
				for p := range nPos {
					for g := range c.nKV {
						copy(hk[(g*maxPos+p)*c.hd:][:c.hd], k.s()[(p*c.nKV+g)*c.hd:])
						copy(hv[(g*maxPos+p)*c.hd:][:c.hd], v.s()[(p*c.nKV+g)*c.hd:])
					}
				}
				want, got := make([]float32, c.nHeads*c.hd), make([]float32, c.nHeads*c.hd)
				scratch := make([]float32, nPos*c.nHeads)
				Attention(want, q.s(), k.s(), v.s(), nPos, c.nHeads, c.nKV, c.hd, 0.1, scratch)
				AttentionKV(got, q.s(), hk, hv, nPos, c.nHeads, c.nKV, c.hd, maxPos*c.hd, c.hd, 0.1, scratch, 0, c.nHeads)
				if i := vecFirstDiff(got, want); i >= 0 {
					t.Fatalf("AttentionKV head-major (%d/%d heads of %d, nPos %d) [%d] = %v, want %v", c.nHeads, c.nKV, c.hd, nPos, i, got[i], want[i])
				}
			}
		}
	})
}
