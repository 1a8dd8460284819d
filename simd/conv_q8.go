package simd

// The int8 convolutions on the backend (the kernel and its arithmetic are
// in conv_q8rows.go): each call quantizes its input rows once (history
// rows too: a row's quantization is its own, so a stream pushed in pieces
// gives the bits of one call), then the row kernel runs the output rows
// in blocks of rows over the pool, every block through all panels.

// q8ConvTask runs an int8 conv job over blocks of rows.
type q8ConvTask struct {
	l     Level
	c     *q8Conv
	job   *q8Job
	block int // rows per block, a multiple of 6
}

// RunRange implements Task over row blocks [lo, hi).
func (t *q8ConvTask) RunRange(lo, hi int) {
	r0, r1 := lo*t.block, min(hi*t.block, len(t.job.yo))
	q8ConvRun(t.l, t.c, t.job, r0, r1, 0, t.c.panels)
}

// runQ8Job runs the job (rows listed and padded) on the pool.
func (b *Backend) runQ8Job(c *q8Conv, job *q8Job) {
	job.prepare(active, c)
	n := len(job.yo)
	threads := 1
	if b.pool != nil {
		threads = b.pool.Active()
	}
	t := &b.convQ8T
	*t = q8ConvTask{l: active, c: c, job: job, block: n}
	if threads > 1 && n >= 12 {
		// About 4 blocks per thread, claimed dynamically.
		t.block = max(6, (n+4*threads-1)/(4*threads)/6*6)
	}
	blocks := (n + t.block - 1) / t.block
	if b.pool == nil || blocks == 1 {
		t.RunRange(0, blocks)
		return
	}
	b.pool.mu.Lock()
	b.pool.runDynamic(t, blocks, 1)
	b.pool.mu.Unlock()
}

// q8Rows returns the backend's quantized-row scratch, at least n bytes.
func (b *Backend) q8Rows(n int) []byte {
	b.convQ8X = resized(b.convQ8X, n)
	return b.convQ8X
}

// convQ8 is Conv (addY: ConvAdd) on int8 weights, the bias added.
func (b *Backend) convQ8(y, x []float32, m, batch int, c *convWeights, addY bool) {
	q := c.q8c
	in, out, k, d := c.in, c.out, c.kernel, c.dilation
	rows := (k-1)*d + m
	S := q8RowStride(in)
	xq := b.q8Rows(batch * rows * S)
	quantizeRowsQ8(active, xq, x, batch*rows, in, in)
	job := &b.convQ8Job
	job.reset(y, xq, d*S, c.bias, addY)
	job.list(m, batch, out, rows, S)
	b.runQ8Job(q, job)
}

// gemmConvTQ8 is ConvTranspose's GEMM on int8 weights: tmp[t][j·out+o] for
// m input rows (no bias: the overlap-add adds it).
func (b *Backend) gemmConvTQ8(tmp, x []float32, m int, c *convWeights) {
	q := c.q8c
	S := q8RowStride(c.in)
	xq := b.q8Rows(m * S)
	quantizeRowsQ8(active, xq, x, m, c.in, c.in)
	job := &b.convQ8Job
	job.reset(tmp, xq, S, nil, false)
	job.list(m, 1, q.out, m, S)
	b.runQ8Job(q, job)
}
