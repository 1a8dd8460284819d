package sampler

import (
	"fmt"
	"math"
)

// Qwen3TTS is the Qwen3-TTS sampling contract (docs/MODEL.md §1,
// §5; docs/SAMPLING.md §5): codebook 0 is sampled from the talker's 3072 codec logits with ids
// CodebookSize..Vocab−1 except EOS masked, EOS masked while fewer than
// MinTokens frames exist and the repetition penalty over earlier codebook-0
// ids only; codebooks 1..15 are sampled from the predictor's CodebookSize
// logits with no penalties. Every value is configurable.
type Qwen3TTS struct {
	Vocab        int // talker codec vocabulary (3072)
	CodebookSize int // ids per codebook (2048)
	EOS          int // codec_eos id (2150)
	MinTokens    int // EOS masked while fewer frames exist (2)

	Talker    Params // codebook-0 params (T 0.9, top-k 50, top-p 1, repetition 1.05)
	Predictor Params // codebooks 1..15 (T 0.9, top-k 50, top-p 1)
}

// DefaultQwen3TTS returns the contract with the released checkpoints'
// generation_config.json values.
func DefaultQwen3TTS() Qwen3TTS {
	t := DefaultParams()
	t.Temperature, t.TopK, t.RepetitionPenalty = 0.9, 50, 1.05
	p := DefaultParams()
	p.Temperature, p.TopK = 0.9, 50
	return Qwen3TTS{Vocab: 3072, CodebookSize: 2048, EOS: 2150, MinTokens: 2, Talker: t, Predictor: p}
}

// Validate checks the contract's ids and both parameter sets.
func (c *Qwen3TTS) Validate() error {
	if c.CodebookSize <= 0 || c.CodebookSize > c.Vocab {
		return fmt.Errorf("sampler: qwen3-tts codebook size %d outside (0, vocab %d]", c.CodebookSize, c.Vocab)
	}
	if c.EOS < 0 || c.EOS >= c.Vocab {
		return fmt.Errorf("sampler: qwen3-tts eos id %d outside [0, %d)", c.EOS, c.Vocab)
	}
	if c.MinTokens < 0 {
		return fmt.Errorf("sampler: qwen3-tts min_tokens %d must be >= 0", c.MinTokens)
	}
	if err := c.Talker.Validate(c.Vocab); err != nil {
		return fmt.Errorf("qwen3-tts talker params: %w", err)
	}
	if err := c.Predictor.Validate(c.CodebookSize); err != nil {
		return fmt.Errorf("qwen3-tts predictor params: %w", err)
	}
	return nil
}

// TalkerRequest returns a codebook-0 request: the Talker params with the
// contract's EOS and MinTokens, an empty prompt (so the repetition penalty
// sees earlier codebook-0 ids only) and the SuppressRange processor.
func (c *Qwen3TTS) TalkerRequest() (*Request, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := c.Talker
	eos := c.EOS
	p.EOSTokenID = &eos
	p.MinTokens = c.MinTokens
	r, err := NewRequest(p, c.Vocab, nil, nil)
	if err != nil {
		return nil, err
	}
	r.AddProcessor(&SuppressRange{Lo: c.CodebookSize, Hi: c.Vocab, Except: c.EOS})
	return r, nil
}

// PredictorRequest returns the request for codebooks 1..15 of one stream:
// one generator (from Predictor.Seed) shared by all its sub-steps, never
// re-seeded.
func (c *Qwen3TTS) PredictorRequest() (*Request, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return NewRequest(c.Predictor, c.CodebookSize, nil, nil)
}

// SuppressRange is a Processor masking ids Lo..Hi−1 except Except (set it
// outside the range to mask them all): Qwen3-TTS's suppress_tokens.
type SuppressRange struct {
	Lo, Hi, Except int
}

// Process implements Processor.
func (s *SuppressRange) Process(logits []float32, _ []int32) {
	ninf := float32(math.Inf(-1))
	hi := min(s.Hi, len(logits))
	for i := max(s.Lo, 0); i < hi; i++ {
		if i != s.Except {
			logits[i] = ninf
		}
	}
}
