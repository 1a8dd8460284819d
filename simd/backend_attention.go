package simd

// attnRows is phase 2 of Backend.Attention as a pool Task over parts: part
// p of parts takes rows [p·m/parts, (p+1)·m/parts), normalising and
// rotating each row's q and attending over its cache with the part's own q
// and score scratch (slot p of b.qkTmp, b.attnTmp). Rows are independent,
// so any split gives the single-threaded result, bit for bit; the scratch
// grows with the threads, not the rows (a long prefill has many). The
// Backend keeps one (b.attn), so a call allocates nothing.
type attnRows struct {
	b           *Backend
	out, qkv    []float32
	caches, pos []int32
	layer       int
	qn          []float32 // q norm gain
	rope        *ropeTable
	heads, kvh  int
	hd, maxN    int // head width; score scratch per part
	m, parts    int // rows; parts they are split into
	eps, scale  float32
}

// RunRange implements Task over parts [lo, hi).
func (t *attnRows) RunRange(lo, hi int) {
	for part := lo; part < hi; part++ {
		t.rows(part, part*t.m/t.parts, (part+1)*t.m/t.parts)
	}
}

// rows runs rows [r0, r1) with scratch slot part.
func (t *attnRows) rows(part, r0, r1 int) {
	b := t.b
	qw, kw := t.heads*t.hd, t.kvh*t.hd
	row := qw + 2*kw
	q := b.qkTmp[part*qw : (part+1)*qw]
	for r := r0; r < r1; r++ {
		c := &b.objs[t.caches[r]]
		p := int(t.pos[r])
		copy(q, t.qkv[r*row:r*row+qw])
		rmsNormHeads(q, t.qn, t.eps)
		ropeApply(t.rope, q, t.heads, p)
		n := p + 1
		scores := b.attnTmp[part*t.maxN : part*t.maxN+n*(t.heads/t.kvh)]
		attend(t.out[r*qw:(r+1)*qw], q, c.kv[2*t.layer][:n*kw], c.kv[2*t.layer+1][:n*kw], n, t.heads, t.kvh, t.hd, t.scale, scores)
	}
}
