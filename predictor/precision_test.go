package predictor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

func TestParsePrecision(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want predictor.Precision
	}{{"", predictor.Int8}, {"int8", predictor.Int8}, {"fp32", predictor.FP32}, {"int8-fp32head", predictor.Int8FP32Head}, {"int8-pertensor", predictor.Int8PerTensor},
		{"int4", predictor.Int4}, {"int4-mlp", predictor.Int4MLP}, {"int4-gateup", predictor.Int4GateUp}, {"int4-late", predictor.Int4Late}} {
		got, err := predictor.ParsePrecision(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParsePrecision(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.in != "" && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	for _, bad := range []string{"int3", "INT4", "FP32", "bf16", "int4-uniform"} {
		if _, err := predictor.ParsePrecision(bad); err == nil {
			t.Errorf("ParsePrecision(%q): no error", bad)
		}
	}
}

// fewLayers is a Source whose predictor keeps only its first n layers: the
// same width, tables, heads and outlier channels at a fraction of the cost.
type fewLayers struct {
	predictor.Source
	cfg predictor.Config
}

func (f *fewLayers) Config() *predictor.Config { return &f.cfg }

func withPredictorLayers(src predictor.Source, n int) predictor.Source {
	f := &fewLayers{Source: src, cfg: *src.Config()}
	f.cfg.Predictor.Layers = n
	return f
}

// fidelity measures prec against fp32 on frames of teacher-forced codes
// (greedy on prec's own logits): frames×B×15 (row, sub-step) pairs.
func fidelity(t *testing.T, src predictor.Source, prec predictor.Precision, frames, B int) predictor.Parity {
	t.Helper()
	return fidelityOn(t, src, prec, frames, B, nil)
}

// fidelityOn is fidelity with the test precision's backend wrapped by wrap
// (nil: none), e.g. to keep some matrices in fp32.
func fidelityOn(t testing.TB, src predictor.Source, prec predictor.Precision, frames, B int, wrap func(*simd.Backend) predictor.Backend) predictor.Parity {
	t.Helper()
	c := src.Config()
	ref := loadPredictor(t, src, predictor.FP32, predictor.PredictorOptions{MaxBatch: B})
	var p *predictor.CodePredictor
	if wrap == nil {
		p = loadPredictor(t, src, prec, predictor.PredictorOptions{MaxBatch: B})
	} else {
		p = loadPredictorOn(t, wrap(newBackend(t)), src, prec, predictor.PredictorOptions{MaxBatch: B})
	}
	var par predictor.Parity
	if err := p.EnableParity(ref, &par); err != nil {
		t.Fatal(err)
	}
	// Talker hiddens look like a final-norm output: unit noise times the
	// talker's final norm gain (which carries the outlier channels).
	H := c.Talker.Hidden
	gain := readVec(t, src, "talker.model.norm.weight", H)
	r := rand.New(rand.NewPCG(42, 1))
	h := make([]float32, B*H)
	c0 := make([]int32, B)
	codes := make([]int32, B*c.CodeGroups)
	V := c.PredictorVocab
	greedy := func(g int, logits []float32, out []int32) {
		for b := range out {
			row := logits[b*V : (b+1)*V]
			best := 0
			for i, v := range row {
				if v > row[best] {
					best = i
				}
			}
			out[b] = int32(best)
		}
	}
	for f := 0; f < frames; f++ {
		for i := range h {
			h[i] = float32(r.NormFloat64() * gain[i%H])
		}
		for b := range c0 {
			c0[b] = int32(r.IntN(c.PredictorVocab))
		}
		if err := p.PredictFrame(h, c0, codes, greedy); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s vs fp32 over %d pairs: top-1 %.3f, top-5 %.3f, max |Δlogit| %.3f, mean KL %.5f",
		prec, par.Pairs, par.Top1(), par.Top5(), par.MaxAbsDiff, par.MeanKL())
	return par
}

// passes is the fidelity bar: top-1 ≥ 0.95 and mean KL ≤ 0.005.
func passes(p predictor.Parity) bool { return p.Top1() >= 0.95 && p.MeanKL() <= 0.005 }

func testFidelity(t *testing.T, src predictor.Source) {
	const frames, B = 7, 2 // 210 (row, sub-step) pairs
	if p := fidelity(t, src, predictor.Int8, frames, B); !passes(p) {
		t.Errorf("int8: top-1 %.3f (want ≥ 0.95), mean KL %.5f (want ≤ 0.005)", p.Top1(), p.MeanKL())
	}
	if p := fidelity(t, src, predictor.Int8PerTensor, frames, B); passes(p) {
		t.Errorf("int8-pertensor passes the bar (top-1 %.3f, mean KL %.5f): the outlier channels should break it", p.Top1(), p.MeanKL())
	}
}

// TestFidelityOutliers runs the fidelity bar on the 0.6B predictor's width,
// tables, heads and outlier channels with 2 of its 5 layers.
func TestFidelityOutliers(t *testing.T) {
	src, err := predictor.OpenModel("synth:0.6b+outliers")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	testFidelity(t, withPredictorLayers(src, 2))
}

// TestFidelityOutliersFull0_6B runs it on the whole 5-layer 0.6B predictor
// (about 15 s; skipped in -short).
func TestFidelityOutliersFull0_6B(t *testing.T) {
	if testing.Short() {
		t.Skip("full 0.6B predictor fidelity: drop -short to run it")
	}
	src, err := predictor.OpenModel("synth:0.6b+outliers")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	testFidelity(t, src)
}

// loadPredictorOn is loadPredictor on the backend b.
func loadPredictorOn(t testing.TB, b predictor.Backend, src predictor.Source, prec predictor.Precision, opts predictor.PredictorOptions) *predictor.CodePredictor {
	t.Helper()
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
