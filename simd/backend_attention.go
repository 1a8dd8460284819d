package simd

// attnRows is phase 2 of Backend.Attention as a pool Task: rows [lo, hi)
// each normalise and rotate their q and attend over their cache. Every row
// has its own q and score scratch (b.qkTmp, b.attnTmp), so rows run on
// any thread in any order with the single-threaded result, bit for bit.
// The Backend keeps one (b.attn), so a call allocates nothing.
type attnRows struct {
	b           *Backend
	out, qkv    []float32
	caches, pos []int32
	layer       int
	qn          []float32 // q norm gain
	rope        *ropeTable
	heads, kvh  int
	hd, maxN    int // head width; score scratch per row
	eps, scale  float32
}

// RunRange implements Task.
func (t *attnRows) RunRange(lo, hi int) {
	b := t.b
	qw, kw := t.heads*t.hd, t.kvh*t.hd
	row := qw + 2*kw
	for r := lo; r < hi; r++ {
		c := &b.objs[t.caches[r]]
		p := int(t.pos[r])
		q := b.qkTmp[r*qw : (r+1)*qw]
		copy(q, t.qkv[r*row:r*row+qw])
		rmsNormHeads(q, t.qn, t.eps)
		ropeApply(t.rope, q, t.heads, p)
		n := p + 1
		scores := b.attnTmp[r*t.maxN : r*t.maxN+n*(t.heads/t.kvh)]
		attend(t.out[r*qw:(r+1)*qw], q, c.kv[2*t.layer][:n*kw], c.kv[2*t.layer+1][:n*kw], n, t.heads, t.kvh, t.hd, t.scale, scores)
	}
}
