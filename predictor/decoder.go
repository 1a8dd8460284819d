package predictor

import "fmt"

// geometry is a decoder's shape in the ints the graph uses.
type geometry struct {
	layers, hidden, inter   int
	heads, kvHeads, headDim int
	maxPos                  int
	eps, theta              float32
}

// qkvWidth is the width of one fused q|k|v row.
func (g *geometry) qkvWidth() int { return (g.heads + 2*g.kvHeads) * g.headDim }

// geometryOf converts a DecoderConfig.
func geometryOf(c DecoderConfig) geometry {
	return geometry{
		layers: c.Layers, hidden: c.Hidden, inter: c.Intermediate,
		heads: c.Heads, kvHeads: c.KVHeads, headDim: c.HeadDim,
		maxPos: c.MaxPositions,
		eps:    float32(c.RMSEps), theta: float32(c.RopeTheta),
	}
}

// check refuses a geometry the graph cannot run.
func (g *geometry) check(what string) error {
	if g.layers <= 0 || g.hidden <= 0 || g.inter <= 0 || g.heads <= 0 || g.kvHeads <= 0 || g.headDim <= 0 {
		return fmt.Errorf("predictor: %s decoder geometry %+v has a non-positive size", what, *g)
	}
	if g.heads%g.kvHeads != 0 {
		return fmt.Errorf("predictor: %s heads %d not a multiple of kv heads %d", what, g.heads, g.kvHeads)
	}
	if g.headDim%2 != 0 {
		return fmt.Errorf("predictor: %s head_dim %d is odd (rotate-half RoPE needs it even)", what, g.headDim)
	}
	return nil
}

// decoder is a Qwen3 decoder stack on a Backend: the layers, the final norm
// and the rotary table. Talker and code predictor both run on it.
type decoder struct {
	b      Backend
	geom   geometry
	layers []layerWeights
	norm   int32   // final norm [hidden]
	rope   int32   // rotary table for positions 0..geom.maxPos-1
	guard  []int32 // guarded residual channels (guard.go), ascending
}

// scratch holds a decoder's activation buffers for up to maxM rows.
type scratch struct {
	maxM                 int
	h, qkv, att, gu, act []float32
	guard                []float32 // the guarded rows' products
}

// ensure grows s to hold m rows (allocating only when m exceeds every
// earlier size, never in a steady state).
func (s *scratch) ensure(g *geometry, guards, m int) {
	if m <= s.maxM && len(s.guard) >= m*guards {
		return
	}
	m = max(m, s.maxM)
	s.maxM = m
	s.h = make([]float32, m*g.hidden)
	s.qkv = make([]float32, m*g.qkvWidth())
	s.att = make([]float32, m*g.heads*g.headDim)
	s.gu = make([]float32, m*2*g.inter)
	s.act = make([]float32, m*g.inter)
	s.guard = make([]float32, m*guards)
}

// forward runs every layer on the residual stream x (m rows of hidden,
// updated in place). Row r sits at position pos[r] of cache caches[r].
func (d *decoder) forward(x []float32, m int, caches, pos []int32, s *scratch) error {
	if len(x) != m*d.geom.hidden || len(caches) != m || len(pos) != m {
		return fmt.Errorf("predictor: decoder forward of %d rows with %d values, %d caches, %d positions", m, len(x), len(caches), len(pos))
	}
	s.ensure(&d.geom, len(d.guard), m)
	for l := range d.layers {
		if err := d.layer(l, x, m, caches, pos, s); err != nil {
			return fmt.Errorf("predictor: layer %d: %w", l, err)
		}
	}
	return nil
}

// finalNorm writes RMSNorm(x)·norm for m rows into out.
func (d *decoder) finalNorm(out, x []float32, m int) error {
	return d.b.RMSNorm(out, x, m, d.norm, d.geom.eps)
}

// free releases every handle of the decoder.
func (d *decoder) free() {
	for _, lw := range d.layers {
		for _, h := range []int32{lw.inNorm, lw.qkv, lw.qNorm, lw.kNorm, lw.o, lw.postNorm, lw.gateUp, lw.down, lw.oGuard, lw.downGuard} {
			if h >= 0 {
				d.b.Free(h)
			}
		}
	}
	d.b.Free(d.norm)
	d.b.Free(d.rope)
	d.layers = nil
}

// bytesPerPass returns the bytes of matrices one pass over the layers reads.
func (d *decoder) bytesPerPass() (int64, error) {
	var n int64
	for _, lw := range d.layers {
		for _, h := range []int32{lw.qkv, lw.o, lw.gateUp, lw.down, lw.oGuard, lw.downGuard} {
			if h < 0 {
				continue
			}
			k, err := d.b.Bytes(h)
			if err != nil {
				return 0, err
			}
			n += k
		}
	}
	return n, nil
}
