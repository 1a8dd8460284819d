package simd

import (
	"fmt"
	"math"
)

// matrix returns a matrix handle and checks y/x against it for m rows.
func (b *Backend) matrix(y, x []float32, m int, w int32) (*object, error) {
	o, err := b.get(w, kindMatrix, "matrix")
	if err != nil {
		return nil, err
	}
	if m < 1 || len(x) != m*o.cols || len(y) != m*o.rows {
		return nil, fmt.Errorf("simd: backend: MatMul(%dx%dx%d) with len(x) %d, len(y) %d (want %d, %d)",
			m, o.cols, o.rows, len(x), len(y), m*o.cols, m*o.rows)
	}
	return o, nil
}

// q8Input returns an activation buffer for cols inputs in blocks of block
// (the weights' block) and m rows, growing it on first use of a larger m.
func (b *Backend) q8Input(cols, m, block int) *Q8Input {
	for i, q := range b.inputs {
		if q.Cols() == cols && q.Block() == block {
			if q.MaxM() < m {
				q = NewQ8Input(m, cols, block)
				b.inputs[i] = q
			}
			return q
		}
	}
	q := NewQ8Input(max(m, 8), cols, block)
	b.inputs = append(b.inputs, q)
	return q
}

// scratchF32 returns b.tmp resized to n values.
func (b *Backend) scratchF32(n int) []float32 {
	if cap(b.tmp) < n {
		b.tmp = make([]float32, n)
	}
	return b.tmp[:n]
}

// matmul computes y = x·Wᵀ + bias into y.
func (b *Backend) matmul(y, x []float32, m int, o *object) {
	switch {
	case o.q8 != nil:
		q := b.q8Input(o.cols, m, DefaultBlock)
		xr := b.scratchF32(m * o.cols)
		copy(xr, x)
		hadamardBlocks(xr, m, o.cols)
		q.Quantize(xr, m)
		b.gemmQ8(y, q, o.q8)
	case o.q4 != nil:
		q := b.q8Input(o.cols, m, Q4Block)
		xr := b.scratchF32(m * o.cols)
		copy(xr, x)
		hadamardBlocks(xr, m, o.cols)
		q.Quantize(xr, m)
		b.gemmQ4(y, q, o.q4)
	case o.perTensor:
		xq := b.scratchF32(m * o.cols)
		fakeQuantTensor(xq, x)
		b.gemmF32(y, xq, m, o.f32)
	default:
		b.gemmF32(y, x, m, o.f32)
	}
	if o.bias != nil {
		for i := 0; i < m; i++ {
			Add(y[i*o.rows:(i+1)*o.rows], o.bias)
		}
	}
}

// MatMul computes y[m×rows] = x[m×cols]·Wᵀ (+ bias). It implements
// predictor.Backend.
func (b *Backend) MatMul(y, x []float32, m int, w int32) error {
	o, err := b.matrix(y, x, m, w)
	if err != nil {
		return err
	}
	if b.replaying() {
		return nil // a load's product whose use is in the cache file (prepared.go)
	}
	b.matmul(y, x, m, o)
	return nil
}

// MatMulAdd computes y[m×rows] += x[m×cols]·Wᵀ (+ bias). It implements
// predictor.Backend.
func (b *Backend) MatMulAdd(y, x []float32, m int, w int32) error {
	o, err := b.matrix(y, x, m, w)
	if err != nil {
		return err
	}
	if b.replaying() {
		return nil // a load's product whose use is in the cache file (prepared.go)
	}
	// matmul uses b.tmp for the activations; keep the product apart.
	n := m * o.rows
	if cap(b.addTmp) < n {
		b.addTmp = make([]float32, n)
	}
	t := b.addTmp[:n]
	b.matmul(t, x, m, o)
	Add(y, t)
	return nil
}

// RMSNorm computes out[r] = x[r]/sqrt(mean(x[r]²)+eps)·w for m rows. It
// implements predictor.Backend.
func (b *Backend) RMSNorm(out, x []float32, m int, w int32, eps float32) error {
	o, err := b.get(w, kindVector, "norm weight")
	if err != nil {
		return err
	}
	n := o.cols
	if m < 1 || len(x) != m*n || len(out) != m*n {
		return fmt.Errorf("simd: backend: RMSNorm of %d rows of %d with len(x) %d, len(out) %d", m, n, len(x), len(out))
	}
	if !(eps > 0) || math.IsInf(float64(eps), 0) {
		return fmt.Errorf("simd: backend: RMSNorm eps %v must be positive and finite", eps)
	}
	rmsNorm(out, x, m, o.data, eps)
	return nil
}

// SwiGLU computes out[r][i] = silu(gu[r][i])·gu[r][n+i]. It implements
// predictor.Backend.
func (b *Backend) SwiGLU(out, gu []float32, m int) error {
	if m < 1 || len(out)%m != 0 || len(gu) != 2*len(out) || len(out) == 0 {
		return fmt.Errorf("simd: backend: SwiGLU of %d rows with len(gu) %d, len(out) %d (want gu twice out)", m, len(gu), len(out))
	}
	n := len(out) / m
	for r := 0; r < m; r++ {
		siluMul(out[r*n:(r+1)*n], gu[2*r*n:(2*r+1)*n], gu[(2*r+1)*n:(2*r+2)*n])
	}
	return nil
}

// Embed writes out row r = Σ_j table[ids[r·perRow+j]]. It implements
// predictor.Backend.
func (b *Backend) Embed(out []float32, ids []int32, perRow int, table int32) error {
	o, err := b.get(table, kindTable, "table")
	if err != nil {
		return err
	}
	if perRow < 1 || len(ids) == 0 || len(ids)%perRow != 0 || len(out) != len(ids)/perRow*o.cols {
		return fmt.Errorf("simd: backend: Embed of %d ids, %d per row, into %d values of a %d-wide table", len(ids), perRow, len(out), o.cols)
	}
	for i, id := range ids {
		if id < 0 || int(id) >= o.rows {
			return fmt.Errorf("simd: backend: Embed id[%d] = %d outside [0, %d)", i, id, o.rows)
		}
	}
	c := o.cols
	for r := 0; r < len(ids)/perRow; r++ {
		dst := out[r*c : (r+1)*c]
		id := int(ids[r*perRow])
		copy(dst, o.data[id*c:(id+1)*c])
		for j := 1; j < perRow; j++ {
			id := int(ids[r*perRow+j])
			Add(dst, o.data[id*c:(id+1)*c])
		}
	}
	return nil
}

// Attention runs one layer's attention for m rows (see predictor.Backend):
// per-head q/k RMSNorm, RoPE at pos[r], k/v stored in caches[r] at pos[r],
// then each row attends over positions 0..pos[r] of its cache. It
// implements predictor.Backend.
func (b *Backend) Attention(out, qkv []float32, m int, caches, pos []int32, layer int, qNorm, kNorm, rope int32, heads int, eps float32) error {
	qn, err := b.get(qNorm, kindVector, "q norm")
	if err != nil {
		return err
	}
	kn, err := b.get(kNorm, kindVector, "k norm")
	if err != nil {
		return err
	}
	ro, err := b.get(rope, kindRope, "rope")
	if err != nil {
		return err
	}
	if m < 1 || len(caches) != m || len(pos) != m {
		return fmt.Errorf("simd: backend: Attention of %d rows with %d caches, %d positions", m, len(caches), len(pos))
	}
	if !(eps > 0) {
		return fmt.Errorf("simd: backend: Attention eps %v must be positive", eps)
	}
	// Check every row's cache and position before touching any cache.
	var hd, kvh int
	for r := 0; r < m; r++ {
		c, err := b.get(caches[r], kindKV, "kv cache")
		if err != nil {
			return fmt.Errorf("%w (row %d)", err, r)
		}
		if r == 0 {
			hd, kvh = c.headDim, c.kvHeads
		} else if c.headDim != hd || c.kvHeads != kvh {
			return fmt.Errorf("simd: backend: Attention row %d cache has %d×%d heads, row 0 %d×%d", r, c.kvHeads, c.headDim, kvh, hd)
		}
		if layer < 0 || layer >= c.layers {
			return fmt.Errorf("simd: backend: Attention layer %d outside the cache's %d layers", layer, c.layers)
		}
		if pos[r] < 0 || int(pos[r]) >= c.maxPos || int(pos[r]) >= ro.maxPos {
			return fmt.Errorf("simd: backend: Attention row %d position %d outside the cache (%d) or rope (%d) positions", r, pos[r], c.maxPos, ro.maxPos)
		}
	}
	if heads < 1 || heads%kvh != 0 || qn.cols != hd || kn.cols != hd || ro.cols != hd {
		return fmt.Errorf("simd: backend: Attention %d heads over %d kv heads of %d (q norm %d, k norm %d, rope %d)", heads, kvh, hd, qn.cols, kn.cols, ro.cols)
	}
	qw, kw := heads*hd, kvh*hd
	row := qw + 2*kw
	if len(qkv) != m*row || len(out) != m*qw {
		return fmt.Errorf("simd: backend: Attention of %d rows with len(qkv) %d, len(out) %d (want %d, %d)", m, len(qkv), len(out), m*row, m*qw)
	}
	// Phase 1: normalise and rotate k, store k and v.
	for r := 0; r < m; r++ {
		c := &b.objs[caches[r]]
		p := int(pos[r])
		src := qkv[r*row : (r+1)*row]
		kd := c.kv[2*layer][p*kw : (p+1)*kw]
		vd := c.kv[2*layer+1][p*kw : (p+1)*kw]
		copy(kd, src[qw:qw+kw])
		copy(vd, src[qw+kw:])
		rmsNormHeads(kd, kn.data, eps)
		ropeApply(ro.rope, kd, kvh, p)
	}
	// Phase 2: each row's q against its cache, rows (or, with fewer rows
	// than threads and long caches, runs of a row's heads) split over the
	// pool.
	// Scores for up to the largest cache's positions, so a growing
	// sequence does not regrow the buffer step by step.
	maxN, longest := 0, 0
	for r, h := range caches {
		maxN = max(maxN, b.objs[h].maxPos)
		longest = max(longest, int(pos[r])+1)
	}
	maxN *= heads / kvh
	parts, split := 1, 1
	if b.pool != nil {
		parts, split = attnParts(m, b.pool.Threads(), longest, kvh)
	}
	if cap(b.qkTmp) < parts*qw {
		b.qkTmp = make([]float32, parts*qw)
	}
	if cap(b.attnTmp) < parts*maxN {
		b.attnTmp = make([]float32, parts*maxN)
	}
	var cut []int // whole rows a part: their runs (a split row needs none)
	if split == 1 {
		if cap(b.attnCut) < parts+1 {
			b.attnCut = make([]int, parts+1)
		}
		cut = b.attnCut[:parts+1]
		attnCuts(cut, pos, parts)
	}
	t := &b.attn
	*t = attnRows{b: b, out: out, qkv: qkv, caches: caches, pos: pos, layer: layer, qn: qn.data, rope: ro.rope,
		heads: heads, kvh: kvh, hd: hd, maxN: maxN, split: split, cut: cut, eps: eps, scale: float32(1 / math.Sqrt(float64(hd)))}
	if parts > 1 {
		b.pool.Run(t, parts, 1)
	} else {
		t.RunRange(0, 1)
	}
	*t = attnRows{}
	return nil
}
