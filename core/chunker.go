package core

import "github.com/omni-tts/omni/sched"

// chunker cuts one stream's frames into chunks. On the fixed ramp (adapt
// nil) chunk i covers frames [ChunkEnd(i−1), ChunkEnd(i)); with an adaptive
// controller (chunker_adaptive.go) a chunk covers every frame not yet sent
// once the controller is ready for them. Either way a chunk carries
// ramp.LeftContext(first) earlier frames and a finish flushes the rest.
type chunker struct {
	ramp    sched.FixedRamp
	adapt   *sched.Adaptive // nil: the fixed ramp
	index   int             // next chunk's index
	emitted int             // frames covered by chunks so far
}

// next reports whether total frames complete the next chunk at nowMS (ms
// on the engine clock; only the adaptive controller reads it), and if so
// returns it (without codes or stream; the caller fills them).
func (c *chunker) next(total int, nowMS float64) (Chunk, bool) {
	if c.adapt != nil {
		return c.nextAdaptive(total, nowMS)
	}
	if !c.ramp.Ready(c.index, total) {
		return Chunk{}, false
	}
	return c.cut(c.ramp.ChunkEnd(c.index)-c.emitted, false), true
}

// left returns the frames still missing from the next chunk once total
// frames exist, at nowMS.
func (c *chunker) left(total int, nowMS float64) int {
	if c.adapt != nil {
		return c.leftAdaptive(total, nowMS)
	}
	return max(0, c.ramp.ChunkEnd(c.index)-total)
}

// finish returns the final chunk: every frame not yet covered (possibly
// none: a final marker).
func (c *chunker) finish(total int) Chunk {
	return c.cut(total-c.emitted, true)
}

// cut emits a chunk of n new frames.
func (c *chunker) cut(n int, final bool) Chunk {
	ch := Chunk{Index: c.index, First: c.emitted, Frames: n, LeftContext: c.ramp.LeftContext(c.emitted), Final: final}
	c.index++
	c.emitted += n
	return ch
}
