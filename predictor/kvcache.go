package predictor

import "fmt"

// Sequence is one talker sequence: its KV cache (preallocated for the
// sequence's max_model_len) and the next position to fill.
type Sequence struct {
	t      *Talker
	cache  int32
	pos    int
	maxLen int
}

// NewSequence allocates a KV cache for up to maxLen positions (prompt and
// generated frames) on the talker's backend.
func (t *Talker) NewSequence(maxLen int) (*Sequence, error) {
	g := &t.w.dec.geom
	if maxLen < 1 || maxLen > t.maxLen {
		return nil, fmt.Errorf("predictor: sequence max length %d outside [1, %d]", maxLen, t.maxLen)
	}
	h, err := t.b.NewKVCache(g.layers, g.kvHeads, g.headDim, maxLen)
	if err != nil {
		return nil, fmt.Errorf("predictor: talker kv cache of %d positions: %w", maxLen, err)
	}
	return &Sequence{t: t, cache: h, maxLen: maxLen}, nil
}

// Pos returns the number of positions filled.
func (s *Sequence) Pos() int { return s.pos }

// MaxLen returns the positions the cache holds.
func (s *Sequence) MaxLen() int { return s.maxLen }

// Reset empties the sequence for reuse (the cache is overwritten in place).
func (s *Sequence) Reset() { s.pos = 0 }

// Close frees the cache.
func (s *Sequence) Close() error {
	if s.cache < 0 {
		return nil
	}
	err := s.t.b.Free(s.cache)
	s.cache = -1
	return err
}

// KVBytesPerToken returns the bytes one position of a talker cache takes
// (fp32 k and v for every layer).
func (t *Talker) KVBytesPerToken() int {
	g := &t.w.dec.geom
	return 2 * 4 * g.layers * g.kvHeads * g.headDim
}
