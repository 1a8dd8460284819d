package core

import (
	"fmt"

	"github.com/omni-tts/omni/predictor"
)

// Dims are the sizes of a model the engine needs.
type Dims struct {
	Hidden       int // talker hidden size (width of every talker input row)
	Vocab        int // talker vocabulary (codebook-0 logits per row, 3072)
	CodebookSize int // residual codebook size (2048)
	Groups       int // codes per frame (16)
}

// Sequence is one talker sequence (its KV cache) as the engine holds it.
type Sequence interface {
	// Close frees the sequence's KV cache.
	Close() error
}

// Model is what the engine runs: the talker and the code predictor, batched
// over B streams. NewModel adapts omni's predictor package to it; tests use
// small fakes. Every method is called from one goroutine at a time.
type Model interface {
	// Dims returns the model's sizes.
	Dims() Dims
	// MaxBatch returns the most streams one Decode or PredictFrame takes.
	MaxBatch() int
	// KVBytesPerToken returns the KV bytes one talker position takes.
	KVBytesPerToken() int64
	// NewSequence allocates a talker sequence of maxLen positions.
	NewSequence(maxLen int) (Sequence, error)
	// TextEmbed writes the text track of len(ids) rows (text_projection of
	// text_embedding) into out (len(ids)×Hidden).
	TextEmbed(out []float32, ids []int32) error
	// CodecEmbed writes the talker codec_embedding rows of ids into out.
	CodecEmbed(out []float32, ids []int32) error
	// Prefill runs the prompt rows embeds of seq and writes the last row's
	// final-norm hidden (Hidden) and codec_head logits (Vocab).
	Prefill(seq Sequence, embeds, hidden, logits []float32) error
	// Decode runs one row per sequence in one pass (B×Hidden in, B×Hidden
	// hidden and B×Vocab logits out).
	Decode(seqs []Sequence, embeds, hidden, logits []float32) error
	// PredictFrame runs the code predictor for B = len(c0) streams, calling
	// pick for codebooks 1..Groups-1 with B×CodebookSize logits; codes
	// (B×Groups) receives every code, c0 first.
	PredictFrame(hidden []float32, c0, codes []int32, pick func(g int, logits []float32, codes []int32)) error
	// FrameEmbed writes the codec part of the next talker input of B frames
	// (codes B×Groups): Σ of the 16 codebook embeddings.
	FrameEmbed(out []float32, codes []int32) error
	// Close frees what the model allocated for the engine (not the weights).
	Close() error
}

// BatchPrefiller is a Model that can run the prompts of several sequences
// in one pass over the talker weights. The engine prefills every request it
// admits in one step with one PrefillBatch call when its Model implements
// it (and falls back to one Prefill per request otherwise).
type BatchPrefiller interface {
	// PrefillBatch runs rows[i] prompt rows of seqs[i] for every i, the rows
	// of all sequences one after the other in embeds (Σ rows × Hidden), and
	// writes each sequence's last-row final-norm hidden (B×Hidden) and
	// codec_head logits (B×Vocab), exactly as len(seqs) Prefill calls would.
	// On an error no sequence has advanced: each may be prefilled again.
	PrefillBatch(seqs []Sequence, rows []int, embeds, hidden, logits []float32) error
}

// predictorModel adapts predictor.Talker and predictor.CodePredictor.
type predictorModel struct {
	t    *predictor.Talker
	p    *predictor.CodePredictor
	dims Dims
	bpt  int64
	seqs []*predictor.Sequence // Decode's and PrefillBatch's argument, reused
}

// predictorSeq wraps a predictor.Sequence.
type predictorSeq struct{ s *predictor.Sequence }

// Close implements Sequence.
func (s predictorSeq) Close() error { return s.s.Close() }

// ModelOptions size the talker and the code predictor NewModel builds.
type ModelOptions struct {
	MaxBatch int            // most streams per pass (max_num_seqs), >= 1
	MaxLen   int            // most talker positions per sequence; 0 = the model's
	Path     predictor.Path // code predictor path (Incremental by default)
	// Wrap, when set, wraps the model NewEngine builds before the engine
	// gets it (NewModel ignores it).
	Wrap func(Model) Model
}

// NewModel builds a talker and a code predictor on loaded weights
// (predictor.LoadWeights) and adapts them to Model.
func NewModel(w *predictor.Weights, opts ModelOptions) (Model, error) {
	if w == nil || w.Talker == nil || w.Predictor == nil {
		return nil, fmt.Errorf("core: model needs loaded talker and code predictor weights")
	}
	tw, pw := w.Talker, w.Predictor
	if tw.Hidden() != pw.TalkerHidden() {
		return nil, fmt.Errorf("core: talker hidden %d, code predictor expects %d", tw.Hidden(), pw.TalkerHidden())
	}
	if pw.Groups() != Codebooks {
		return nil, fmt.Errorf("core: model has %d code groups, the engine needs %d", pw.Groups(), Codebooks)
	}
	t, err := predictor.NewTalker(tw, predictor.TalkerOptions{MaxBatch: opts.MaxBatch, MaxLen: opts.MaxLen})
	if err != nil {
		return nil, err
	}
	p, err := predictor.NewCodePredictor(pw, predictor.PredictorOptions{MaxBatch: opts.MaxBatch, Path: opts.Path})
	if err != nil {
		return nil, err
	}
	return &predictorModel{
		t: t, p: p,
		dims: Dims{Hidden: tw.Hidden(), Vocab: tw.Vocab(), CodebookSize: pw.Vocab(), Groups: pw.Groups()},
		bpt:  int64(t.KVBytesPerToken()),
		seqs: make([]*predictor.Sequence, 0, opts.MaxBatch),
	}, nil
}

func (m *predictorModel) Dims() Dims             { return m.dims }
func (m *predictorModel) MaxBatch() int          { return cap(m.seqs) }
func (m *predictorModel) KVBytesPerToken() int64 { return m.bpt }

func (m *predictorModel) NewSequence(maxLen int) (Sequence, error) {
	s, err := m.t.NewSequence(maxLen)
	if err != nil {
		return nil, err
	}
	return predictorSeq{s}, nil
}

func (m *predictorModel) TextEmbed(out []float32, ids []int32) error { return m.t.TextEmbed(out, ids) }
func (m *predictorModel) CodecEmbed(out []float32, ids []int32) error {
	return m.t.CodecEmbed(out, ids)
}

func (m *predictorModel) Prefill(seq Sequence, embeds, hidden, logits []float32) error {
	s, ok := seq.(predictorSeq)
	if !ok {
		return fmt.Errorf("core: prefill of a foreign sequence")
	}
	return m.t.Prefill(s.s, embeds, hidden, logits)
}

func (m *predictorModel) Decode(seqs []Sequence, embeds, hidden, logits []float32) error {
	if err := m.unwrap(seqs, "decode"); err != nil {
		return err
	}
	return m.t.Decode(m.seqs, embeds, hidden, logits)
}

// PrefillBatch implements BatchPrefiller.
func (m *predictorModel) PrefillBatch(seqs []Sequence, rows []int, embeds, hidden, logits []float32) error {
	if err := m.unwrap(seqs, "prefill"); err != nil {
		return err
	}
	return m.t.PrefillBatch(m.seqs, rows, embeds, hidden, logits)
}

// unwrap fills m.seqs with the predictor sequences of seqs (at most
// MaxBatch; the talker refuses more).
func (m *predictorModel) unwrap(seqs []Sequence, what string) error {
	if len(seqs) > cap(m.seqs) {
		return fmt.Errorf("core: %s batch %d above max batch %d", what, len(seqs), cap(m.seqs))
	}
	m.seqs = m.seqs[:0]
	for i, q := range seqs {
		s, ok := q.(predictorSeq)
		if !ok {
			return fmt.Errorf("core: %s row %d: foreign sequence", what, i)
		}
		m.seqs = append(m.seqs, s.s)
	}
	return nil
}

func (m *predictorModel) PredictFrame(hidden []float32, c0, codes []int32, pick func(g int, logits []float32, codes []int32)) error {
	return m.p.PredictFrame(hidden, c0, codes, pick)
}

func (m *predictorModel) FrameEmbed(out []float32, codes []int32) error {
	return m.t.FrameEmbed(out, codes)
}

// IDsFromConfig returns the special ids of a checkpoint's config. The
// config has no id for the "\n" of the role rows; Qwen2's tokenizer gives
// 198, used when it fits the text vocabulary (a tiny synthetic model's
// vocabulary may be smaller: then the last text id stands in).
func IDsFromConfig(c *predictor.Config) SpecialIDs {
	nl := int32(198)
	if int(nl) >= c.TextVocab {
		nl = int32(c.TextVocab - 1)
	}
	ids := SpecialIDs{
		ImStart: int32(c.ImStart), Assistant: int32(c.Assistant), Newline: nl,
		TTSPad: int32(c.TTSPad), TTSBos: int32(c.TTSBos), TTSEos: int32(c.TTSEos),
		CodecPad: int32(c.CodecPad), CodecBos: int32(c.CodecBos), CodecEos: int32(c.CodecEos),
		CodecThink: int32(c.CodecThink), CodecNoThink: int32(c.CodecNothink),
		CodecThinkBos: int32(c.CodecThinkBos), CodecThinkEos: int32(c.CodecThinkEos),
		TextVocab: c.TextVocab, CodecVocab: c.TalkerVocab, CodebookSize: c.PredictorVocab,
		Languages:      map[string]int32{},
		Speakers:       map[string]int32{},
		SpeakerDialect: map[string]string{},
		ModelKind:      c.ModelKind,
		TakesInstruct:  TakesInstruct(c.ModelKind, c.ModelSize),
		Context:        c.Talker.MaxPositions,
		Hidden:         c.Talker.Hidden,
	}
	for k, v := range c.LanguageIDs {
		ids.Languages[k] = int32(v)
	}
	for k, v := range c.SpeakerIDs {
		ids.Speakers[k] = int32(v)
	}
	for k, v := range c.SpeakerDialects {
		ids.SpeakerDialect[k] = v
	}
	return ids
}

func (m *predictorModel) Close() error { return m.p.Close() }
