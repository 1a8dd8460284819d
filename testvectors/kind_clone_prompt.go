package testvectors

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
)

// runClonePrompt runs a `clone_prompt` case: the talker input of a cloning
// request (x-vector or in-context, either layout) on a Base checkpoint, the
// prompt built as the engine builds it (core.TextRequest with a Clone, then
// BuildPrompt) and embedded with the checkpoint's tables through
// core.Embedder; the prefill rows are compared with expect_rows and the
// trailing text rows with expect_trailing (the shorter side padded with the
// tts_pad row), element-wise within atol. The encoders are not run: the
// x-vector and the reference codes are given.
func runClonePrompt(c *Case, env *Env) error {
	var model, txt string
	if err := c.Decode("model", &model); err != nil {
		return err
	}
	if err := c.Decode("text", &txt); err != nil {
		return err
	}
	in := core.TextInput{Text: txt, Layout: "streaming"}
	for _, f := range []struct {
		name string
		v    *string
	}{{"ref_text", &in.RefText}, {"language", &in.Language}} {
		if c.Has(f.name) {
			if err := c.Decode(f.name, f.v); err != nil {
				return err
			}
		}
	}
	var xOnly, nonStreaming bool
	for _, f := range []struct {
		name string
		v    *bool
	}{{"x_vector_only", &xOnly}, {"non_streaming", &nonStreaming}} {
		if c.Has(f.name) {
			if err := c.Decode(f.name, f.v); err != nil {
				return err
			}
		}
	}
	if nonStreaming {
		in.Layout = "non-streaming"
	}
	wantErr, hasErr, err := expectError(c)
	if err != nil {
		return err
	}
	clone, err := cloneOfCase(c, xOnly)
	if err != nil {
		return err
	}
	in.Clone = clone
	dir := c.ModelPath(model)
	ids, p, err, setup := textPrompt(c, env, dir, false, in)
	if setup != nil {
		return setup
	}
	if hasErr {
		return checkRefusal(c, err, wantErr)
	}
	if err != nil {
		return c.Errorf("text", "%v", err)
	}
	var atol float64
	if err := c.Decode("atol", &atol); err != nil {
		return err
	}
	if !(atol >= 0) || math.IsInf(atol, 0) {
		return c.Errorf("atol", "%v must be finite and non-negative", atol)
	}
	rows, trailing, pad, err := embedCasePrompt(c, env, dir, &p)
	if err != nil {
		return err
	}
	H := ids.Hidden
	want, err := c.F32("expect_rows")
	if err != nil {
		return err
	}
	if len(want.Shape) != 2 || want.Shape[1] != H || want.Shape[0] != len(p.Rows) {
		return c.Errorf("expect_rows", "shape %v, omni builds [%d, %d]", want.Shape, len(p.Rows), H)
	}
	if err := compareRows(c, "expect_rows", rows, want.Data, nil, H, atol); err != nil {
		return err
	}
	wantT, err := c.F32("expect_trailing")
	if err != nil {
		return err
	}
	if len(wantT.Shape) != 2 || wantT.Shape[1] != H {
		return c.Errorf("expect_trailing", "shape %v, want [K, %d]", wantT.Shape, H)
	}
	return compareRows(c, "expect_trailing", trailing, wantT.Data, pad, H, atol)
}

// cloneOfCase reads x_vector and, unless xOnly, ref_codes into a Clone.
func cloneOfCase(c *Case, xOnly bool) (*core.Clone, error) {
	xv, err := c.F32("x_vector")
	if err != nil {
		return nil, err
	}
	if len(xv.Shape) != 1 {
		return nil, c.Errorf("x_vector", "shape %v, want [H]", xv.Shape)
	}
	clone := &core.Clone{XVector: xv.Data}
	if xOnly {
		return clone, nil
	}
	if !c.Has("ref_codes") {
		return nil, c.Errorf("ref_codes", "in-context mode (x_vector_only false) needs the reference codes")
	}
	rc, err := c.I64("ref_codes")
	if err != nil {
		return nil, err
	}
	if len(rc.Shape) != 2 || rc.Shape[1] != 16 || rc.Shape[0] < 1 {
		return nil, c.Errorf("ref_codes", "shape %v, want [R, 16]", rc.Shape)
	}
	clone.RefCodes = make([]int32, len(rc.Data))
	for i, v := range rc.Data {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, c.Errorf("ref_codes", "[%d] = %d outside int32", i, v)
		}
		clone.RefCodes[i] = int32(v)
	}
	return clone, nil
}

// embedCasePrompt loads the checkpoint's talker and code predictor on the
// case's backend and embeds p: its prefill rows, its trailing text rows and
// the tts_pad row.
func embedCasePrompt(c *Case, env *Env, dir string, p *core.Prompt) (rows, trailing, pad []float32, err error) {
	if env == nil || env.NewBackend == nil {
		return nil, nil, nil, fmt.Errorf("testvectors: %s: no backend to embed the prompt on (Env.NewBackend is nil)", c.Name)
	}
	src, err := predictor.OpenModel(dir)
	if err != nil {
		return nil, nil, nil, c.Errorf("model", "%v", err)
	}
	defer src.Close()
	b, release := env.NewBackend()
	defer release()
	w, err := predictor.LoadWeights(src, b, predictor.FP32)
	if err != nil {
		return nil, nil, nil, c.Errorf("model", "%v", err)
	}
	defer w.Free()
	m, err := core.NewModel(w, core.ModelOptions{MaxBatch: 4, MaxLen: 1})
	if err != nil {
		return nil, nil, nil, c.Errorf("model", "%v", err)
	}
	defer m.Close()
	H := m.Dims().Hidden
	e := core.NewEmbedder(m)
	rows = make([]float32, len(p.Rows)*H)
	if err := e.Rows(rows, p); err != nil {
		return nil, nil, nil, fmt.Errorf("testvectors: %s: embedding the prompt: %w", c.Name, err)
	}
	trailing = make([]float32, len(p.Trailing)*H)
	if err := e.Trailing(trailing, p); err != nil {
		return nil, nil, nil, fmt.Errorf("testvectors: %s: embedding the trailing text: %w", c.Name, err)
	}
	pad = make([]float32, H)
	if err := m.TextEmbed(pad, []int32{p.Pad}); err != nil {
		return nil, nil, nil, fmt.Errorf("testvectors: %s: embedding tts_pad: %w", c.Name, err)
	}
	return rows, trailing, pad, nil
}

// compareRows compares rows of H values element-wise within atol; with
// pad, the shorter side is padded with that row first.
func compareRows(c *Case, field string, got, want, pad []float32, H int, atol float64) error {
	n, m := len(got)/H, len(want)/H
	if pad == nil && n != m {
		return c.Errorf(field, "%d rows, want %d", n, m)
	}
	at := func(v []float32, k, i, j int) float32 {
		if i < k {
			return v[i*H+j]
		}
		return pad[j]
	}
	for i := 0; i < max(n, m); i++ {
		for j := 0; j < H; j++ {
			g, w := at(got, n, i, j), at(want, m, i, j)
			if d := math.Abs(float64(g) - float64(w)); !(d <= atol) {
				return c.Errorf(field, "row %d [%d]: got %v, want %v (|diff| %.3g > atol %g; omni has %d rows, the reference %d)", i, j, g, w, d, atol, n, m)
			}
		}
	}
	return nil
}
