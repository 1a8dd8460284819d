package core

import "fmt"

// ChunkSchedule sizes the chunks a stream hands to the codec stage: the
// first len(Ramp) chunks carry Ramp[i] frames, every later chunk Steady
// frames, and each chunk carries up to LeftContext earlier frames as decoder
// context. The edge profile's default is DefaultChunkSchedule.
type ChunkSchedule struct {
	Ramp        []int
	Steady      int
	LeftContext int
}

// DefaultChunkSchedule is the edge profile's fixed ramp: 2, 4, 8, 16, then
// 25 frames per chunk, with 72 frames of left context (the decoder's sliding
// window).
func DefaultChunkSchedule() ChunkSchedule {
	return ChunkSchedule{Ramp: []int{2, 4, 8, 16, 25}, Steady: 25, LeftContext: 72}
}

// Validate checks that every size is positive and the context not negative.
func (s ChunkSchedule) Validate() error {
	if s.Steady < 1 {
		return fmt.Errorf("core: chunk schedule steady size %d must be >= 1", s.Steady)
	}
	for i, n := range s.Ramp {
		if n < 1 {
			return fmt.Errorf("core: chunk schedule ramp[%d] = %d must be >= 1", i, n)
		}
	}
	if s.LeftContext < 0 {
		return fmt.Errorf("core: chunk schedule left context %d negative", s.LeftContext)
	}
	return nil
}

// Size returns the frames of chunk i.
func (s ChunkSchedule) Size(i int) int {
	if i < len(s.Ramp) {
		return s.Ramp[i]
	}
	return s.Steady
}

// chunker cuts one stream's frames into chunks.
type chunker struct {
	sched   ChunkSchedule
	index   int // next chunk's index
	emitted int // frames covered by chunks so far
}

// next reports whether total frames complete the next chunk, and if so
// returns it (without codes or stream; the caller fills them).
func (c *chunker) next(total int) (Chunk, bool) {
	n := c.sched.Size(c.index)
	if total-c.emitted < n {
		return Chunk{}, false
	}
	return c.cut(n, false), true
}

// finish returns the final chunk: every frame not yet covered (possibly
// none: a final marker).
func (c *chunker) finish(total int) Chunk {
	return c.cut(total-c.emitted, true)
}

// cut emits a chunk of n new frames.
func (c *chunker) cut(n int, final bool) Chunk {
	lc := min(c.emitted, c.sched.LeftContext)
	ch := Chunk{Index: c.index, First: c.emitted, Frames: n, LeftContext: lc, Final: final}
	c.index++
	c.emitted += n
	return ch
}
