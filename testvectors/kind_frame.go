package testvectors

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/sampler"
)

// frameCase is a parsed "frame" case: the request it makes of the engine
// and the codes it expects.
type frameCase struct {
	c      *Case
	model  string // model directory
	prec   string
	req    core.Request
	expect []int64 // F×16
	frames int
}

// parseFrame reads a frame case against the model's config.
func parseFrame(c *Case, cfg *predictor.Config) (*frameCase, error) {
	H, G := cfg.Talker.Hidden, cfg.CodeGroups
	fc := &frameCase{c: c}
	in, err := c.F32("inputs_embeds")
	if err != nil {
		return nil, err
	}
	if len(in.Shape) != 2 || in.Shape[1] != H || in.Shape[0] < 1 {
		return nil, c.Errorf("inputs_embeds", "shape %v, want [T, %d]", in.Shape, H)
	}
	emb := &core.EmbeddedPrompt{Rows: in.Data}
	if c.Has("trailing_text_embeds") {
		tr, err := c.F32("trailing_text_embeds")
		if err != nil {
			return nil, err
		}
		if len(tr.Shape) != 2 || tr.Shape[1] != H {
			return nil, c.Errorf("trailing_text_embeds", "shape %v, want [N, %d]", tr.Shape, H)
		}
		emb.Trailing = tr.Data
	}
	pad, err := c.F32("tts_pad_embed")
	if err != nil {
		return nil, err
	}
	if len(pad.Data) != H || (len(pad.Shape) != 1 && !(len(pad.Shape) == 2 && pad.Shape[0] == 1)) {
		return nil, c.Errorf("tts_pad_embed", "shape %v, want [%d]", pad.Shape, H)
	}
	emb.Pad = pad.Data
	if err := c.Decode("frames", &fc.frames); err != nil {
		return nil, err
	}
	if fc.frames < 1 {
		return nil, c.Errorf("frames", "%d, want >= 1", fc.frames)
	}
	tp, err := frameParams(c, "talker_params")
	if err != nil {
		return nil, err
	}
	if tp.EOSTokenID != nil {
		if *tp.EOSTokenID != cfg.CodecEos {
			return nil, c.Errorf("talker_params.eos_token_id", "%d, the model's codec_eos is %d", *tp.EOSTokenID, cfg.CodecEos)
		}
		tp.EOSTokenID = nil // the engine applies the contract's EOS itself
	}
	pp, err := frameParams(c, "predictor_params")
	if err != nil {
		return nil, err
	}
	exp, err := c.I64("expect_codes")
	if err != nil {
		return nil, err
	}
	if len(exp.Shape) != 2 || exp.Shape[1] != G || exp.Shape[0] > fc.frames {
		return nil, c.Errorf("expect_codes", "shape %v, want [F ≤ %d, %d]", exp.Shape, fc.frames, G)
	}
	fc.expect = exp.Data
	fc.req = core.Request{ID: c.Name, Embedded: emb, Talker: tp, Predictor: pp, MaxFrames: fc.frames}
	return fc, nil
}

// frameParams decodes a params object over vLLM's defaults.
func frameParams(c *Case, field string) (sampler.Params, error) {
	p := sampler.DefaultParams()
	raw, ok := c.Field(field)
	if !ok {
		return p, &FieldError{File: c.Path, Field: field, Err: ErrMissing}
	}
	if err := decodeStrict(c, field, raw, &p); err != nil {
		return p, err
	}
	return p, nil
}

// check compares a stream's codes with the case's expectation.
func (fc *frameCase) check(s *core.Stream) error {
	c := fc.c
	end := s.End()
	if end.Reason == core.EndError || end.Reason == core.EndCancelled {
		return fmt.Errorf("testvectors: %s: stream ended %v: %v", c.Name, end.Reason, end.Err)
	}
	got := s.Codes()
	G := core.Codebooks
	F := len(fc.expect) / G
	for f := 0; f < min(F, len(got)); f++ {
		for g := 0; g < G; g++ {
			if want := fc.expect[f*G+g]; int64(got[f][g]) != want {
				return c.Errorf("expect_codes", "first difference at frame %d codebook %d: got %d, want %d", f, g, got[f][g], want)
			}
		}
	}
	if len(got) != F {
		return c.Errorf("expect_codes", "%d frames generated (%v), want %d", len(got), end.Reason, F)
	}
	if F < fc.frames && end.Reason != core.EndEOS {
		return c.Errorf("expect_codes", "%d frames ended by %v, want EOS", F, end.Reason)
	}
	return nil
}

// frameEngine loads the model at dir in precision prec on a backend from
// env and returns an inline engine for batch streams, with a release func.
func frameEngine(c *Case, env *Env, dir, precName string, batch int) (*core.Engine, *predictor.Config, func(), error) {
	prec, err := predictor.ParsePrecision(precName)
	if err != nil {
		return nil, nil, nil, c.Errorf("precision", "%v", err)
	}
	if env == nil || env.NewBackend == nil {
		return nil, nil, nil, fmt.Errorf("testvectors: %s: no backend to run model kinds on (Env.NewBackend is nil)", c.Name)
	}
	src, err := predictor.OpenModel(dir)
	if err != nil {
		return nil, nil, nil, c.Errorf("model", "%v", err)
	}
	b, releaseB := env.NewBackend()
	release := func() {
		releaseB()
		src.Close()
	}
	w, err := predictor.LoadWeights(src, b, prec)
	if err != nil {
		release()
		return nil, nil, nil, c.Errorf("model", "%v", err)
	}
	free := func() { w.Free(); release() }
	cfg := src.Config()
	e, err := core.NewEngine(w, cfg, core.Config{MaxBatch: batch, Inline: true, Throttle: core.Throttle{Disabled: true}}, core.ModelOptions{})
	if err != nil {
		free()
		return nil, nil, nil, err
	}
	return e, cfg, func() { e.Close(); free() }, nil
}

// caseModel reads the model and precision fields of a frame case.
func caseModel(c *Case, env *Env) (dir, prec string, err error) {
	var model string
	if err := c.Decode("model", &model); err != nil {
		return "", "", err
	}
	if err := c.Decode("precision", &prec); err != nil {
		return "", "", err
	}
	if _, perr := predictor.ParsePrecision(prec); perr != nil {
		return "", "", c.Errorf("precision", "%v", perr)
	}
	if err := env.CheckPrecision(c, prec); err != nil {
		return "", "", err
	}
	return c.ModelPath(model), prec, nil
}

// runFrame runs a "frame" case: the whole engine (core) on the case's
// prompt rows, trailing rows and pad row, sampling codebook 0 under the
// Qwen3-TTS contract and codebooks 1..15 with the predictor's generator;
// the codes of every frame, and where the case ends by EOS, are compared
// exactly with expect_codes.
func runFrame(c *Case, env *Env) error {
	dir, prec, err := caseModel(c, env)
	if err != nil {
		return err
	}
	e, cfg, release, err := frameEngine(c, env, dir, prec, 1)
	if err != nil {
		return err
	}
	defer release()
	fc, err := parseFrame(c, cfg)
	if err != nil {
		return err
	}
	s, err := e.Submit(context.Background(), fc.req)
	if err != nil {
		return c.Errorf("", "%v", err)
	}
	if err := stepUntilIdle(e); err != nil {
		return err
	}
	return fc.check(s)
}

// stepUntilIdle drives an inline engine until it has no work.
func stepUntilIdle(e *core.Engine) error {
	for {
		busy, err := e.Step()
		if err != nil {
			return err
		}
		if !busy {
			return nil
		}
	}
}
