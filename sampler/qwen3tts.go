package sampler

import (
	"fmt"
	"math"
)

// Qwen3TTS is the Qwen3-TTS sampling contract (docs/MODEL.md §1, §5;
// docs/SAMPLING.md §5), the one definition every user of the engine shares: codebook 0 is
// sampled from the talker's Vocab codec logits with ids CodebookSize..Vocab−1
// except EOS masked (a SuppressRange processor: no per-request id list), EOS
// masked while fewer than Talker.MinTokens frames exist and the repetition
// penalty over earlier codebook-0 ids only; codebooks 1..15 are sampled from
// the predictor's CodebookSize logits with no penalties. Talker and
// Predictor are the default parameters of a request; the ids are the
// model's.
type Qwen3TTS struct {
	Vocab        int // talker codec vocabulary (3072)
	CodebookSize int // ids per codebook (2048)
	EOS          int // codec_eos id (2150)

	Talker    Params // codebook-0 defaults (T 0.9, top-k 50, top-p 1, repetition 1.05, min_tokens 2)
	Predictor Params // codebooks 1..15 defaults (T 0.9, top-k 50, top-p 1)
}

// DefaultQwen3TTS returns the contract with the released checkpoints'
// ids and generation_config.json values.
func DefaultQwen3TTS() Qwen3TTS {
	t := DefaultParams()
	t.Temperature, t.TopK, t.RepetitionPenalty, t.MinTokens = 0.9, 50, 1.05, 2
	p := DefaultParams()
	p.Temperature, p.TopK = 0.9, 50
	return Qwen3TTS{Vocab: 3072, CodebookSize: 2048, EOS: 2150, Talker: t, Predictor: p}
}

// Validate checks the contract's ids and both default parameter sets.
func (c *Qwen3TTS) Validate() error {
	if c.CodebookSize <= 0 || c.CodebookSize > c.Vocab {
		return fmt.Errorf("sampler: qwen3-tts codebook size %d outside (0, vocab %d]", c.CodebookSize, c.Vocab)
	}
	if c.EOS < 0 || c.EOS >= c.Vocab {
		return fmt.Errorf("sampler: qwen3-tts eos id %d outside [0, %d)", c.EOS, c.Vocab)
	}
	if err := c.Talker.Validate(c.Vocab); err != nil {
		return fmt.Errorf("sampler: qwen3-tts talker params: %w", err)
	}
	if err := c.Predictor.Validate(c.CodebookSize); err != nil {
		return fmt.Errorf("sampler: qwen3-tts predictor params: %w", err)
	}
	return nil
}

// TalkerRequest returns a codebook-0 request for p under the contract: p
// with the contract's EOS as its stop id, an empty prompt (so the
// repetition penalty sees earlier codebook-0 ids only) and the
// SuppressRange processor. p's own AllowedTokenIDs, if any, still apply.
func (c *Qwen3TTS) TalkerRequest(p Params) (*Request, error) {
	if c.EOS < 0 || c.EOS >= c.Vocab || c.CodebookSize <= 0 || c.CodebookSize > c.Vocab {
		return nil, fmt.Errorf("sampler: qwen3-tts eos %d, codebook size %d do not fit vocab %d", c.EOS, c.CodebookSize, c.Vocab)
	}
	eos := c.EOS
	p.EOSTokenID = &eos
	r, err := NewRequest(p, c.Vocab, nil, nil)
	if err != nil {
		return nil, err
	}
	r.AddProcessor(&SuppressRange{Lo: c.CodebookSize, Hi: c.Vocab, Except: c.EOS})
	return r, nil
}

// PredictorRequest returns the request for codebooks 1..15 of one stream
// under p: one generator (from p.Seed) shared by all its sub-steps, never
// re-seeded.
func (c *Qwen3TTS) PredictorRequest(p Params) (*Request, error) {
	return NewRequest(p, c.CodebookSize, nil, nil)
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
