package testvectors

import (
	"fmt"

	"github.com/omni-tts/omni/predictor"
)

// runTalker runs a "talker" case: a prefill of inputs_embeds, then one
// decode step per decode_embeds row; the final-norm hidden and codec_head
// logits after the prefill and after each step are compared with
// expect_hidden and expect_logits.
func runTalker(c *Case, env *Env) error {
	m, err := openModelCase(c, env)
	if err != nil {
		return err
	}
	defer m.close()
	cfg := m.src.Config()
	H, V := cfg.Talker.Hidden, cfg.TalkerVocab
	in, err := c.F32("inputs_embeds")
	if err != nil {
		return err
	}
	if len(in.Shape) != 2 || in.Shape[1] != H || in.Shape[0] < 1 {
		return c.Errorf("inputs_embeds", "shape %v, want [T, %d]", in.Shape, H)
	}
	var dec F32
	if c.Has("decode_embeds") {
		if dec, err = c.F32("decode_embeds"); err != nil {
			return err
		}
		if len(dec.Shape) != 2 || dec.Shape[1] != H {
			return c.Errorf("decode_embeds", "shape %v, want [S, %d]", dec.Shape, H)
		}
	}
	S := len(dec.Data) / H
	wantH, err := c.F32("expect_hidden")
	if err != nil {
		return err
	}
	if len(wantH.Shape) != 2 || wantH.Shape[0] != 1+S || wantH.Shape[1] != H {
		return c.Errorf("expect_hidden", "shape %v, want [%d, %d]", wantH.Shape, 1+S, H)
	}
	wantL, err := c.F32("expect_logits")
	if err != nil {
		return err
	}
	if len(wantL.Shape) != 2 || wantL.Shape[0] != 1+S || wantL.Shape[1] != V {
		return c.Errorf("expect_logits", "shape %v, want [%d, %d]", wantL.Shape, 1+S, V)
	}
	w, err := predictor.LoadTalkerWeights(m.src, m.b, m.prec)
	if err != nil {
		return c.Errorf("model", "%v", err)
	}
	defer w.Free()
	T := in.Shape[0]
	tk, err := predictor.NewTalker(w, predictor.TalkerOptions{MaxBatch: 1, MaxLen: T + S})
	if err != nil {
		return err
	}
	seq, err := tk.NewSequence(T + S)
	if err != nil {
		return err
	}
	defer seq.Close()
	gotH := make([]float32, (1+S)*H)
	gotL := make([]float32, (1+S)*V)
	if err := tk.Prefill(seq, in.Data, gotH[:H], gotL[:V]); err != nil {
		return fmt.Errorf("testvectors: %s: prefill: %w", c.Name, err)
	}
	seqs := []*predictor.Sequence{seq}
	for s := 0; s < S; s++ {
		if err := tk.Decode(seqs, dec.Data[s*H:(s+1)*H], gotH[(1+s)*H:(2+s)*H], gotL[(1+s)*V:(2+s)*V]); err != nil {
			return fmt.Errorf("testvectors: %s: decode row %d: %w", c.Name, s, err)
		}
	}
	if err := m.compare(c, "expect_hidden", gotH, wantH.Data, H); err != nil {
		return err
	}
	return m.compare(c, "expect_logits", gotL, wantL.Data, V)
}
