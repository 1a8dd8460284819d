package predictor

import "fmt"

// TalkerWeights are the talker's handles: 28 decoder layers, the final norm,
// codec_head, the stacked codec table and the text projection. Text-embedding
// rows stay behind the Source and are gathered on demand.
type TalkerWeights struct {
	b     Backend
	shape modelShape
	dec   decoder
	head  int32 // codec_head [talkerVocab, hidden]
	// codec is the stacked codec table in talker width: row c <
	// talkerVocab is codec_embedding[c], row talkerVocab + k·predVocab + c
	// the code predictor's codec_embedding[k][c].
	codec   int32
	shared  *PredictorWeights // predictor sharing codec, or nil
	textFC1 int32             // text_projection.linear_fc1 (with bias)
	textFC2 int32             // text_projection.linear_fc2 (with bias)
	src     Source            // text_embedding rows
}

// LoadTalkerWeights loads only the talker from src into b in precision prec
// (see LoadWeights). src must stay open while the weights are used.
func LoadTalkerWeights(src Source, b Backend, prec Precision) (*TalkerWeights, error) {
	return loadTalker(src, b, prec, nil, nil, nil)
}

// loadTalker loads the talker, sharing the codec table of p when p's
// projection is the identity.
func loadTalker(src Source, b Backend, prec Precision, p *PredictorWeights, given, chosen *Guards) (*TalkerWeights, error) {
	if !prec.valid() {
		return nil, fmt.Errorf("predictor: precision %d invalid", int(prec))
	}
	s, err := shapeOf(src)
	if err != nil {
		return nil, err
	}
	ld := &loader{src: src, b: b, given: given, chosen: chosen}
	t := &TalkerWeights{b: b, shape: s, src: src}
	maxPos := s.talker.maxPos
	if maxPos <= 0 || maxPos > 32768 {
		maxPos = 32768
	}
	if t.dec, err = ld.decoder(talkerPrefix, s.talker, prec, maxPos); err != nil {
		ld.abandon()
		return nil, err
	}
	if t.head, err = ld.matrix([]string{"talker.codec_head.weight"}, []int{s.talkerVocab}, s.talkerHidden, "", prec.head()); err != nil {
		ld.abandon()
		return nil, err
	}
	const tp = "talker.text_projection."
	if t.textFC1, err = ld.matrix([]string{tp + "linear_fc1.weight"}, []int{s.textHidden}, s.textHidden, tp+"linear_fc1.bias", prec.body()); err != nil {
		ld.abandon()
		return nil, err
	}
	if t.textFC2, err = ld.matrix([]string{tp + "linear_fc2.weight"}, []int{s.talkerHidden}, s.textHidden, tp+"linear_fc2.bias", prec.body()); err != nil {
		ld.abandon()
		return nil, err
	}
	if p != nil && p.proj < 0 && p.dec.layers != nil {
		t.codec, t.shared = p.input, p
		p.shared = true
	} else if t.codec, err = ld.codecTable(&s, -1); err != nil {
		ld.abandon()
		return nil, err
	}
	return t, nil
}

// Free releases every handle (a codec table shared with a live predictor
// stays until that predictor is freed).
func (t *TalkerWeights) Free() {
	if t.dec.layers == nil {
		return
	}
	t.dec.free()
	for _, h := range []int32{t.head, t.textFC1, t.textFC2} {
		t.b.Free(h)
	}
	switch {
	case t.shared == nil:
		t.b.Free(t.codec)
	case t.shared.dec.layers == nil: // the predictor went first
		t.b.Free(t.codec)
	default:
		t.shared.shared = false // the predictor now owns it alone
	}
	t.shared = nil
}

// Hidden returns the talker width.
func (t *TalkerWeights) Hidden() int { return t.shape.talkerHidden }

// Vocab returns the codec_head size (3072).
func (t *TalkerWeights) Vocab() int { return t.shape.talkerVocab }

// BytesPerToken returns the weight bytes one decode step reads: the layers
// and codec_head.
func (t *TalkerWeights) BytesPerToken() (int64, error) {
	n, err := t.dec.bytesPerPass()
	if err != nil {
		return 0, err
	}
	k, err := t.b.Bytes(t.head)
	return n + k, err
}
