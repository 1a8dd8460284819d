package predictor

import "fmt"

// PredictorWeights are the code predictor's handles: five decoder layers, the
// final norm, one lm head per residual codebook and the input table.
type PredictorWeights struct {
	b     Backend
	shape modelShape
	dec   decoder
	heads []int32 // lm_head.{0..groups-2} [predVocab, predWidth]
	// input is the stacked codec table in predictor width: row c is
	// proj(talker codec_embedding[c]), row talkerVocab + k·predVocab + c is
	// proj(code_predictor codec_embedding[k][c]).
	input int32
	// proj is small_to_mtp_projection for the talker hidden (fp32 with
	// bias), or -1 when it is the identity.
	proj int32
	// shared reports that input is also the talker's codec table (identity
	// projection), owned by whoever frees last.
	shared bool
}

// LoadPredictorWeights loads only the code predictor from src into b in
// precision prec (see LoadWeights). A 1.7B model's small_to_mtp_projection is
// folded into every input-table row at load (exact up to fp32 rounding: the
// projection is affine per row) and kept as an fp32 matrix for the talker
// hidden.
func LoadPredictorWeights(src Source, b Backend, prec Precision) (*PredictorWeights, error) {
	return loadPredictor(src, b, prec, nil, nil)
}

// loadPredictor is LoadPredictorWeights with the guarded channels given (nil:
// chosen) and recorded in chosen (nil: not recorded).
func loadPredictor(src Source, b Backend, prec Precision, given, chosen *Guards) (*PredictorWeights, error) {
	if !prec.valid() {
		return nil, fmt.Errorf("predictor: precision %d invalid", int(prec))
	}
	s, err := shapeOf(src)
	if err != nil {
		return nil, err
	}
	ld := &loader{src: src, b: b, given: given, chosen: chosen}
	w, err := ld.predictor(&s, prec)
	if err != nil {
		ld.abandon()
		return nil, err
	}
	return w, nil
}

// predictor loads the predictor's tensors.
func (ld *loader) predictor(s *modelShape, prec Precision) (*PredictorWeights, error) {
	w := &PredictorWeights{b: ld.b, shape: *s, proj: -1}
	// Positions 0..groups (17 slots for 16 codebooks): a fresh cache per frame.
	dec, err := ld.decoder(predictorPrefix, s.pred, prec, s.groups+1)
	if err != nil {
		return nil, err
	}
	w.dec = dec
	// With int8 heads, the final norm's gain is split between the norm and
	// the heads as for the layers (see smoothAlpha): the final hidden is
	// internal to the predictor.
	var cs []float32
	if prec.head() == "int8" {
		ld.drop(w.dec.norm)
		if w.dec.norm, cs, err = ld.norm(predictorPrefix+"norm.weight", s.predWidth, true); err != nil {
			return nil, err
		}
	}
	for g := 0; g < s.groups-1; g++ {
		h, err := ld.matrixScaled([]string{fmt.Sprintf("talker.code_predictor.lm_head.%d.weight", g)},
			[]int{s.predVocab}, s.predWidth, "", prec.head(), cs)
		if err != nil {
			return nil, err
		}
		w.heads = append(w.heads, h)
	}
	if s.projection {
		const p = "talker.code_predictor.small_to_mtp_projection."
		if w.proj, err = ld.matrix([]string{p + "weight"}, []int{s.predWidth}, s.talkerHidden, p+"bias", "fp32"); err != nil {
			return nil, err
		}
	}
	if w.input, err = ld.codecTable(s, w.proj); err != nil {
		return nil, err
	}
	return w, nil
}

// Free releases every handle (a shared input table stays until the talker
// frees it too).
func (w *PredictorWeights) Free() {
	if w.dec.layers == nil {
		return
	}
	w.dec.free()
	for _, h := range w.heads {
		w.b.Free(h)
	}
	w.heads = nil
	if w.proj >= 0 {
		w.b.Free(w.proj)
	}
	if !w.shared {
		w.b.Free(w.input)
	}
	w.shared = false
}

// Groups returns the codebooks per frame (16): codebook 0 from the talker,
// 1..Groups-1 from the predictor.
func (w *PredictorWeights) Groups() int { return w.shape.groups }

// Vocab returns the size of each residual codebook (2048).
func (w *PredictorWeights) Vocab() int { return w.shape.predVocab }

// TalkerHidden returns the width of the talker hidden the predictor takes.
func (w *PredictorWeights) TalkerHidden() int { return w.shape.talkerHidden }

// BytesPerFrame returns the weight bytes one frame of the incremental path
// reads: groups-1 passes over the layers and one lm head each.
func (w *PredictorWeights) BytesPerFrame() (int64, error) {
	pass, err := w.dec.bytesPerPass()
	if err != nil {
		return 0, err
	}
	n := pass * int64(len(w.heads))
	for _, h := range w.heads {
		k, err := w.b.Bytes(h)
		if err != nil {
			return 0, err
		}
		n += k
	}
	if w.proj >= 0 {
		k, err := w.b.Bytes(w.proj)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}
