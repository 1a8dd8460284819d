package testvectors

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/predictor"
)

// modelCase holds what the predictor and talker kinds share: the model
// opened from the case's "model" path, its precision, its backend and the
// comparison bars.
type modelCase struct {
	src      predictor.Source
	prec     predictor.Precision
	b        predictor.Backend
	release  func()
	atol     float64
	rtol     float64
	hasTol   bool
	minTop1  float64
	hasTop1  bool
	maxKL    float64
	hasMaxKL bool
}

// openModelCase reads the common fields and opens the model; the caller
// must close it. A precision this build does not offer is a *SkipError.
func openModelCase(c *Case, env *Env) (*modelCase, error) {
	var model, precName string
	if err := c.Decode("model", &model); err != nil {
		return nil, err
	}
	if err := c.Decode("precision", &precName); err != nil {
		return nil, err
	}
	prec, err := predictor.ParsePrecision(precName)
	if err != nil {
		return nil, c.Errorf("precision", "%v", err)
	}
	if err := env.CheckPrecision(c, precName); err != nil {
		return nil, err
	}
	m := &modelCase{prec: prec}
	for _, f := range []struct {
		name string
		v    *float64
		has  *bool
	}{{"atol", &m.atol, &m.hasTol}, {"rtol", &m.rtol, &m.hasTol}, {"min_top1", &m.minTop1, &m.hasTop1}, {"max_kl", &m.maxKL, &m.hasMaxKL}} {
		if c.Has(f.name) {
			if err := c.Decode(f.name, f.v); err != nil {
				return nil, err
			}
			if !(*f.v >= 0) || math.IsInf(*f.v, 0) {
				return nil, c.Errorf(f.name, "%v is not a finite non-negative number", *f.v)
			}
			*f.has = true
		}
	}
	if c.Has("atol") != c.Has("rtol") {
		return nil, c.Errorf("atol", "atol and rtol go together")
	}
	if !m.hasTol && !m.hasTop1 && !m.hasMaxKL {
		return nil, c.Errorf("", "no comparison: give atol/rtol, min_top1 or max_kl")
	}
	if env == nil || env.NewBackend == nil {
		return nil, fmt.Errorf("testvectors: %s: no backend to run model kinds on (Env.NewBackend is nil)", c.Name)
	}
	dir := c.ModelPath(model)
	if m.src, err = predictor.OpenModel(dir); err != nil {
		return nil, c.Errorf("model", "%v", err)
	}
	m.b, m.release = env.NewBackend()
	return m, nil
}

// close releases the backend and the model.
func (m *modelCase) close() {
	if m.release != nil {
		m.release()
	}
	m.src.Close()
}

// compare checks rows×vocab logits (and, through field, names the failure)
// against want with the case's bars: elementwise atol + rtol·|want|, the
// fraction of rows whose argmax agrees, and the mean KL(want ‖ got).
func (m *modelCase) compare(c *Case, field string, got, want []float32, vocab int) error {
	if len(got) != len(want) {
		return c.Errorf(field, "%d values computed, %d expected", len(got), len(want))
	}
	if m.hasTol {
		for i := range want {
			d := math.Abs(float64(got[i]) - float64(want[i]))
			if !(d <= m.atol+m.rtol*math.Abs(float64(want[i]))) {
				return c.Errorf(field, "first difference at index %d (row %d, id %d): got %v, want %v (|Δ| %.3g > atol %g + rtol %g·|want|)",
					i, i/vocab, i%vocab, got[i], want[i], d, m.atol, m.rtol)
			}
		}
	}
	if field == "expect_hidden" {
		return nil
	}
	var par predictor.Parity
	par.Record(want, got, len(want)/vocab, vocab)
	if m.hasTop1 && par.Top1() < m.minTop1 {
		return c.Errorf(field, "top-1 agreement %.4f over %d rows, below min_top1 %g", par.Top1(), par.Pairs, m.minTop1)
	}
	if m.hasMaxKL && par.MeanKL() > m.maxKL {
		return c.Errorf(field, "mean KL(reference ‖ omni) %.5f over %d rows, above max_kl %g", par.MeanKL(), par.Pairs, m.maxKL)
	}
	return nil
}

// runPredictor runs a "predictor" case: the code predictor over B frames,
// teacher-forced on the case's codes, its 15 sub-steps' logits compared
// with expect_logits.
func runPredictor(c *Case, env *Env) error {
	m, err := openModelCase(c, env)
	if err != nil {
		return err
	}
	defer m.close()
	cfg := m.src.Config()
	G, V, H := cfg.CodeGroups, cfg.PredictorVocab, cfg.Talker.Hidden
	hidden, err := c.F32("talker_hidden")
	if err != nil {
		return err
	}
	if len(hidden.Shape) != 2 || hidden.Shape[1] != H || hidden.Shape[0] < 1 {
		return c.Errorf("talker_hidden", "shape %v, want [B, %d]", hidden.Shape, H)
	}
	B := hidden.Shape[0]
	codes, err := c.I64("codes")
	if err != nil {
		return err
	}
	if len(codes.Shape) != 2 || codes.Shape[0] != B || codes.Shape[1] != G {
		return c.Errorf("codes", "shape %v, want [%d, %d]", codes.Shape, B, G)
	}
	for i, v := range codes.Data {
		lim := V
		if i%G == 0 {
			lim = cfg.TalkerVocab
		}
		if v < 0 || v >= int64(lim) {
			return c.Errorf("codes", "codes[%d][%d] = %d outside [0, %d)", i/G, i%G, v, lim)
		}
	}
	want, err := c.F32("expect_logits")
	if err != nil {
		return err
	}
	if len(want.Shape) != 3 || want.Shape[0] != B || want.Shape[1] != G-1 || want.Shape[2] != V {
		return c.Errorf("expect_logits", "shape %v, want [%d, %d, %d]", want.Shape, B, G-1, V)
	}
	w, err := predictor.LoadPredictorWeights(m.src, m.b, m.prec)
	if err != nil {
		return c.Errorf("model", "%v", err)
	}
	defer w.Free()
	p, err := predictor.NewCodePredictor(w, predictor.PredictorOptions{MaxBatch: B})
	if err != nil {
		return err
	}
	defer p.Close()
	c0 := make([]int32, B)
	for b := range c0 {
		c0[b] = int32(codes.Data[b*G])
	}
	got := make([]float32, B*(G-1)*V) // [B][G-1][V], as expect_logits
	out := make([]int32, B*G)
	err = p.PredictFrame(hidden.Data, c0, out, func(g int, logits []float32, picked []int32) {
		for b := range picked {
			copy(got[(b*(G-1)+g-1)*V:(b*(G-1)+g)*V], logits[b*V:(b+1)*V])
			picked[b] = int32(codes.Data[b*G+g]) // teacher forcing
		}
	})
	if err != nil {
		return fmt.Errorf("testvectors: %s: %w", c.Name, err)
	}
	return m.compare(c, "expect_logits", got, want.Data, V)
}
