package predictor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd/simdtest"
)

// frameInputs returns B random talker hiddens and teacher codes (c0 below
// 2048-like codec range, the rest within the predictor vocab).
func frameInputs(c *predictor.Config, B int, seed uint64) ([]float32, [][]int32) {
	r := rand.New(rand.NewPCG(seed, 11))
	h := make([]float32, B*c.Talker.Hidden)
	for i := range h {
		h[i] = float32(r.NormFloat64())
	}
	codes := make([][]int32, B)
	for b := range codes {
		codes[b] = make([]int32, c.CodeGroups)
		codes[b][0] = int32(r.IntN(c.TalkerVocab))
		for g := 1; g < c.CodeGroups; g++ {
			codes[b][g] = int32(r.IntN(c.PredictorVocab))
		}
	}
	return h, codes
}

// teacherRun runs one frame teacher-forced and returns the logits of every
// sub-step, [g-1][B×vocab].
func teacherRun(t testing.TB, p *predictor.CodePredictor, c *predictor.Config, h []float32, teacher [][]int32) [][]float32 {
	t.Helper()
	B := len(teacher)
	c0 := make([]int32, B)
	for b := range teacher {
		c0[b] = teacher[b][0]
	}
	out := make([]int32, B*c.CodeGroups)
	var logits [][]float32
	err := p.PredictFrame(h, c0, out, func(g int, l []float32, codes []int32) {
		logits = append(logits, append([]float32(nil), l...))
		for b := range codes {
			codes[b] = teacher[b][g]
		}
	})
	if err != nil {
		t.Fatalf("PredictFrame: %v", err)
	}
	for b := range teacher {
		for g, want := range teacher[b] {
			if out[b*c.CodeGroups+g] != want {
				t.Fatalf("codes[%d][%d] = %d, want %d", b, g, out[b*c.CodeGroups+g], want)
			}
		}
	}
	return logits
}

func loadPredictor(t testing.TB, src predictor.Source, prec predictor.Precision, opts predictor.PredictorOptions) *predictor.CodePredictor {
	t.Helper()
	b := newBackend(t)
	w, err := predictor.LoadPredictorWeights(src, b, prec)
	if err != nil {
		t.Fatalf("LoadPredictorWeights(%s): %v", prec, err)
	}
	t.Cleanup(w.Free)
	p, err := predictor.NewCodePredictor(w, opts)
	if err != nil {
		t.Fatalf("NewCodePredictor: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// testSources returns the predictor test models: two random in-memory ones
// (identity and projection) and the synthetic tiny and tiny-wide.
func testSources(t *testing.T) []struct {
	name string
	src  predictor.Source
} {
	out := []struct {
		name string
		src  predictor.Source
	}{{"identity", tinyModel(smallGeom, 1)}, {"projection", tinyModel(projGeom, 1)}}
	for _, spec := range []string{"synth:tiny", "synth:tiny-wide"} {
		src, err := predictor.OpenModel(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		out = append(out, struct {
			name string
			src  predictor.Source
		}{spec, src})
	}
	return out
}

func TestPredictorMatchesReference(t *testing.T) {
	for _, tc := range testSources(t) {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			c := src.Config()
			ref := loadRefPredictor(t, src)
			for _, path := range []predictor.Path{predictor.Incremental, predictor.FullPrefix} {
				const B = 2
				p := loadPredictor(t, src, predictor.FP32, predictor.PredictorOptions{MaxBatch: B, Path: path})
				h, teacher := frameInputs(c, B, 2)
				got := teacherRun(t, p, c, h, teacher)
				V := c.PredictorVocab
				for b := 0; b < B; b++ {
					hb := make([]float64, c.Talker.Hidden)
					for i := range hb {
						hb[i] = float64(h[b*c.Talker.Hidden+i])
					}
					want := ref.logits(hb, teacher[b])
					for g := range want {
						for v := range want[g] {
							gv, wv := float64(got[g][b*V+v]), want[g][v]
							if math.Abs(gv-wv) > 1e-4*math.Max(1, math.Abs(wv)) {
								t.Fatalf("%s: row %d codebook %d logit %d = %v, reference %v", path, b, g+1, v, gv, wv)
							}
						}
					}
				}
			}
		})
	}
}

func TestIncrementalEqualsFullPrefix(t *testing.T) {
	for _, tc := range testSources(t) {
		testIncrementalEqualsFull(t, tc.name, tc.src)
	}
}

func testIncrementalEqualsFull(t *testing.T, name string, src predictor.Source) {
	c := src.Config()
	for _, prec := range []predictor.Precision{predictor.FP32, predictor.Int8} {
		inc := loadPredictor(t, src, prec, predictor.PredictorOptions{MaxBatch: 2})
		full := loadPredictor(t, src, prec, predictor.PredictorOptions{MaxBatch: 2, Path: predictor.FullPrefix})
		h, teacher := frameInputs(c, 2, 4)
		a := teacherRun(t, inc, c, h, teacher)
		b := teacherRun(t, full, c, h, teacher)
		for g := range a {
			var maxAbs, maxDiff float64
			for i := range a[g] {
				maxAbs = math.Max(maxAbs, math.Abs(float64(b[g][i])))
				maxDiff = math.Max(maxDiff, math.Abs(float64(a[g][i]-b[g][i])))
			}
			if maxDiff > 1e-5*maxAbs {
				t.Errorf("%s %s codebook %d: incremental vs full max |Δ| %g (max |logit| %g)", name, prec, g+1, maxDiff, maxAbs)
			}
		}
	}
}

func TestBatchedEqualsSingle(t *testing.T) {
	src := tinyModel(projGeom, 5)
	c := src.Config()
	const B = 3
	for _, prec := range []predictor.Precision{predictor.Int8, predictor.FP32} {
		for _, path := range []predictor.Path{predictor.Incremental, predictor.FullPrefix} {
			p := loadPredictor(t, src, prec, predictor.PredictorOptions{MaxBatch: B, Path: path})
			h, teacher := frameInputs(c, B, 6)
			batched := teacherRun(t, p, c, h, teacher)
			H, V := c.Talker.Hidden, c.PredictorVocab
			for b := 0; b < B; b++ {
				single := teacherRun(t, p, c, h[b*H:(b+1)*H], teacher[b:b+1])
				for g := range single {
					for v := 0; v < V; v++ {
						if single[g][v] != batched[g][b*V+v] {
							t.Fatalf("%s %s: row %d codebook %d logit %d: batched %v, single %v", prec, path, b, g+1, v, batched[g][b*V+v], single[g][v])
						}
					}
				}
			}
		}
	}
}

func TestPredictFrameAllocatesNothing(t *testing.T) {
	simdtest.EachLevel(t, func(t *testing.T) {
		src := tinyModel(projGeom, 7)
		c := src.Config()
		for _, prec := range []predictor.Precision{predictor.Int8, predictor.FP32} {
			p := loadPredictor(t, src, prec, predictor.PredictorOptions{MaxBatch: 4})
			h, teacher := frameInputs(c, 4, 8)
			c0 := []int32{teacher[0][0], teacher[1][0], teacher[2][0], teacher[3][0]}
			out := make([]int32, 4*c.CodeGroups)
			pick := func(g int, l []float32, codes []int32) {
				for b := range codes {
					codes[b] = int32((g*7 + b) % c.PredictorVocab)
				}
			}
			if err := p.PredictFrame(h, c0, out, pick); err != nil {
				t.Fatal(err)
			}
			n := testing.AllocsPerRun(5, func() {
				if err := p.PredictFrame(h, c0, out, pick); err != nil {
					t.Fatal(err)
				}
			})
			if n != 0 {
				t.Errorf("%s: PredictFrame allocates %v times per frame, want 0", prec, n)
			}
		}
	})
}

func TestPredictFrameRefusesBadInput(t *testing.T) {
	src := tinyModel(smallGeom, 9)
	c := src.Config()
	p := loadPredictor(t, src, predictor.Int8, predictor.PredictorOptions{MaxBatch: 2})
	h, teacher := frameInputs(c, 2, 10)
	c0 := []int32{teacher[0][0], teacher[1][0]}
	out := make([]int32, 2*c.CodeGroups)
	ok := func(g int, l []float32, codes []int32) {}
	bad := func(g int, l []float32, codes []int32) { codes[1] = int32(c.PredictorVocab) }
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"batch above max", p.PredictFrame(make([]float32, 3*c.Talker.Hidden), []int32{0, 0, 0}, make([]int32, 3*c.CodeGroups), ok)},
		{"short hidden", p.PredictFrame(h[1:], c0, out, ok)},
		{"short codes", p.PredictFrame(h, c0, out[1:], ok)},
		{"c0 outside vocab", p.PredictFrame(h, []int32{int32(c.TalkerVocab), 0}, out, ok)},
		{"pick outside vocab", p.PredictFrame(h, c0, out, bad)},
		{"nil pick", p.PredictFrame(h, c0, out, nil)},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := predictor.NewCodePredictor(nil, predictor.PredictorOptions{MaxBatch: 1}); err == nil {
		t.Error("NewCodePredictor(nil): no error")
	}
}
