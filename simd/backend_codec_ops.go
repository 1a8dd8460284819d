package simd

import (
	"fmt"
	"math"
)

// This file holds the codec decoder's ops on the handles of
// backend_codec.go (codec.Backend).

// maxRows bounds the row counts the codec ops accept (m·batch).
const maxRows = 1 << 24

// checkRowsBatch checks m and batch.
func checkRowsBatch(op string, m, batch int) error {
	if m < 1 || batch < 1 || int64(m)*int64(batch) > maxRows {
		return fmt.Errorf("simd: backend: %s of %d rows × %d segments: both must be ≥ 1, at most 2²⁴ rows", op, m, batch)
	}
	return nil
}

// Conv computes a causal dilated convolution for batch segments: segment
// b of x holds (kernel−1)·dilation history rows then m new rows of in
// channels; segment b of y gets m rows of out channels:
//
//	y[b][t][o] = bias[o] + Σ_j Σ_i w[o][i][j] · x[b][t + j·dilation][i]
//
// It implements codec.Backend.
func (b *Backend) Conv(y, x []float32, m, batch int, w int32) error {
	c, err := b.convCall("Conv", y, x, m, batch, w)
	if err != nil {
		return err
	}
	if c.q8c != nil {
		b.convQ8(y, x, m, batch, c, false)
		return nil
	}
	b.convF32(y, x, m, batch, c, false) // fp32 or bf16; adds the bias too
	return nil
}

// convCall returns the conv weights of handle w after checking a call of op
// (Conv, ConvAdd) on them: m rows of batch segments, x holding each
// segment's history rows then its m rows, y the outputs.
func (b *Backend) convCall(op string, y, x []float32, m, batch int, w int32) (*convWeights, error) {
	o, err := b.get(w, kindConv, "conv")
	if err != nil {
		return nil, err
	}
	if err := checkRowsBatch(op, m, batch); err != nil {
		return nil, err
	}
	c := o.conv
	hist := (c.kernel - 1) * c.dilation
	if len(x) != batch*(hist+m)*c.in || len(y) != batch*m*c.out {
		return nil, fmt.Errorf("simd: backend: %s %d×%d×%d dilation %d of %d rows × %d segments with len(x) %d, len(y) %d (want %d, %d)",
			op, c.out, c.in, c.kernel, c.dilation, m, batch, len(x), len(y), batch*(hist+m)*c.in, batch*m*c.out)
	}
	return c, nil
}

// convF32 is Conv on fp32 or bf16 weights (the bias added by the task);
// with addY (the VDPBF16PS path only, dotPath) the outputs are added to y.
func (b *Backend) convF32(y, x []float32, m, batch int, c *convWeights, addY bool) {
	in, out, k, d := c.in, c.out, c.kernel, c.dilation
	seg := ((k-1)*d + m) * in
	K := k * in
	b.convBegin(c)
	// Dilation d on the row list (AVX2 and AVX-512): each output row reads
	// its k taps in place, rows d apart (the kernel skips (d−1)·in inputs
	// after each tap's in), in the order a gathered row would hold them,
	// so the same bits without the copy. On the VDPBF16PS path a tap must
	// hold whole pairs (in even). Dilation 1 is one contiguous tap.
	if d == 1 || (b.rowListed() && (in%2 == 0 || !c.dotPath())) {
		for s := 0; s < batch; s++ {
			b.addConvJob(y[s*m*out:(s+1)*m*out], out, x[s*seg:(s+1)*seg], in, m, K)
		}
		taps, skip := 1, 0
		if d > 1 {
			taps, skip = k, (d-1)*in
		}
		b.runConvJobs(c, c.bias, addY, taps, skip)
		return
	}
	// Dilation d: phase r's outputs t = r + d·u read rows r + d·(u+j), so
	// the gathered rows g_r[u] = x[r + d·u] make it a dilation-1 conv.
	phases := min(d, m)
	total := 0
	for r := 0; r < phases; r++ {
		total += ((m-r+d-1)/d + k - 1) * in
	}
	if cap(b.convX) < batch*total {
		b.convX = make([]float32, batch*total)
	}
	buf := b.convX[:batch*total]
	off := 0
	for s := 0; s < batch; s++ {
		xs, ys := x[s*seg:(s+1)*seg], y[s*m*out:(s+1)*m*out]
		for r := 0; r < phases; r++ {
			mr := (m - r + d - 1) / d
			rows := mr + k - 1
			g := buf[off : off+rows*in]
			off += rows * in
			for u := 0; u < rows; u++ {
				copy(g[u*in:(u+1)*in], xs[(r+d*u)*in:])
			}
			b.addConvJob(ys[r*out:], d*out, g, in, mr, K)
		}
	}
	b.runConvJobs(c, c.bias, addY, 1, 0)
}

// ConvTranspose computes a transposed convolution for batch segments of m
// input rows (in channels), writing m·stride output rows (out channels) per
// segment; carry holds batch×(kernel−stride)×out partial sums, added in and
// replaced:
//
//	full[t·stride + j][o] += Σ_i x[t][i] · w[i][o][j]; y = full + bias
//
// Each output row's contributions are added in input-row order after the
// carry, so any split of a stream into calls gives the same bits. It
// implements codec.Backend.
func (b *Backend) ConvTranspose(y, x []float32, m, batch int, w int32, carry []float32) error {
	c, err := b.convTCall("ConvTranspose", "transposed conv", y, x, m, batch, w, carry)
	if err != nil {
		return err
	}
	in, out, k, st := c.in, c.out, c.kernel, c.stride
	tail := (k - st) * out
	// The GEMM: tmp[t][j·out+o] = Σ_i x[t][i]·w[i][o][j], all segments.
	ko := k * out
	need := batch*m*ko + batch*tail
	if cap(b.convTmp) < need {
		b.convTmp = make([]float32, need)
	}
	tmp := b.convTmp[:batch*m*ko]
	acc := b.convTmp[batch*m*ko : need]
	if c.q8c != nil {
		b.gemmConvTQ8(tmp, x, batch*m, c)
	} else {
		b.convBegin(c)
		b.addConvJob(tmp, ko, x, in, batch*m, in)
		b.runConvJobs(c, nil, false, 1, 0)
	}
	b.overlapAdd(y, tmp, acc[:batch*tail], carry, c, m, batch)
	return nil
}

// convTCall returns the transposed conv weights of handle w (what names
// them in an error) after checking a call of op on them: m input rows of
// batch segments in x, m·stride output rows each in y, and the carry.
func (b *Backend) convTCall(op, what string, y, x []float32, m, batch int, w int32, carry []float32) (*convWeights, error) {
	o, err := b.get(w, kindConvT, what)
	if err != nil {
		return nil, err
	}
	if err := checkRowsBatch(op, m, batch); err != nil {
		return nil, err
	}
	c := o.conv
	in, out, k, st := c.in, c.out, c.kernel, c.stride
	tail := (k - st) * out
	if len(x) != batch*m*in || len(y) != batch*m*st*out || len(carry) != batch*tail {
		return nil, fmt.Errorf("simd: backend: %s %d×%d×%d stride %d of %d rows × %d segments with len(x) %d, len(y) %d, len(carry) %d (want %d, %d, %d)",
			op, in, out, k, st, m, batch, len(x), len(y), len(carry), batch*m*in, batch*m*st*out, batch*tail)
	}
	return c, nil
}

// Depthwise computes a causal depthwise convolution: segment b of x holds
// kernel−1 history rows then m new rows of ch channels:
//
//	y[b][t][c] = bias[c] + Σ_j w[c][j] · x[b][t + j][c]
//
// summed in tap order after the bias. It implements codec.Backend.
func (b *Backend) Depthwise(y, x []float32, m, batch int, w int32) error {
	o, err := b.get(w, kindDepthwise, "depthwise conv")
	if err != nil {
		return err
	}
	if err := checkRowsBatch("Depthwise", m, batch); err != nil {
		return err
	}
	d := o.dw
	ch, k := d.ch, d.kernel
	seg := (k - 1 + m) * ch
	if len(x) != batch*seg || len(y) != batch*m*ch {
		return fmt.Errorf("simd: backend: Depthwise %d×%d of %d rows × %d segments with len(x) %d, len(y) %d (want %d, %d)",
			ch, k, m, batch, len(x), len(y), batch*seg, batch*m*ch)
	}
	for s := 0; s < batch; s++ {
		xs := x[s*seg : (s+1)*seg]
		for t := 0; t < m; t++ {
			yr := y[(s*m+t)*ch : (s*m+t+1)*ch]
			if d.bias != nil {
				copy(yr, d.bias)
			} else {
				clear(yr)
			}
			for j := 0; j < k; j++ {
				xr := xs[(t+j)*ch : (t+j+1)*ch]
				wr := d.w[j*ch : (j+1)*ch]
				for c := range yr {
					yr[c] = float32(yr[c] + float32(wr[c]*xr[c]))
				}
			}
		}
	}
	return nil
}

// LayerNorm computes out[r] = (x[r] − mean)/sqrt(var + eps)·w + b for m
// rows (biased variance, as torch.nn.LayerNorm; mean and variance in
// float64). out may be x. It implements codec.Backend.
func (b *Backend) LayerNorm(out, x []float32, m int, w, bias int32, eps float32) error {
	wo, err := b.get(w, kindVector, "layer norm weight")
	if err != nil {
		return err
	}
	bo, err := b.get(bias, kindVector, "layer norm bias")
	if err != nil {
		return err
	}
	n := wo.cols
	if bo.cols != n {
		return fmt.Errorf("simd: backend: LayerNorm weight of %d, bias of %d", n, bo.cols)
	}
	if m < 1 || m > maxRows || len(x) != m*n || len(out) != m*n {
		return fmt.Errorf("simd: backend: LayerNorm of %d rows of %d with len(x) %d, len(out) %d", m, n, len(x), len(out))
	}
	if !(eps > 0) || math.IsInf(float64(eps), 0) {
		return fmt.Errorf("simd: backend: LayerNorm eps %v must be positive and finite", eps)
	}
	if b.pool != nil && m > 1 && m*n >= rowOpSplit {
		t := &b.lnT
		*t = rowOpTask{out: out, x: x, n: n, w: wo.data, bias: bo.data, eps: eps}
		b.pool.Run(t, m, 1)
		*t = rowOpTask{}
		return nil
	}
	layerNorm(out, x, m, wo.data, bo.data, eps)
	return nil
}

// rowOpSplit is the number of values from which LayerNorm and Scale split
// their rows over the pool (each row's values are computed the same way
// wherever it runs).
const rowOpSplit = 32768

// rowOpTask runs LayerNorm (bias non-nil) or Scale on rows [lo, hi).
type rowOpTask struct {
	out, x  []float32
	n       int
	w, bias []float32
	eps     float32
}

// RunRange implements Task.
func (t *rowOpTask) RunRange(lo, hi int) {
	out, x := t.out[lo*t.n:hi*t.n], t.x[lo*t.n:hi*t.n]
	if t.bias != nil {
		layerNorm(out, x, hi-lo, t.w, t.bias, t.eps)
		return
	}
	scaleRows(out, x, hi-lo, t.w)
}

// layerNorm is LayerNorm on checked arguments.
func layerNorm(out, x []float32, m int, w, bias []float32, eps float32) {
	n := len(w)
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		var s float64
		for _, v := range xr {
			s += float64(v)
		}
		mean := s / float64(n)
		var q float64
		for _, v := range xr {
			d := float64(v) - mean
			q += d * d
		}
		rstd := 1 / math.Sqrt(q/float64(n)+float64(eps))
		for i, v := range xr {
			or[i] = float32(float32((float64(v)-mean)*rstd)*w[i]) + bias[i]
		}
	}
}

// GELU computes out[i] = x[i]·(1 + erf(x[i]/√2))/2, the exact (erf) form,
// within 3e-7·|x[i]| (erf from a float32 erfc approximation, the same bits at
// every level: geluGeneric). out may be x. It implements codec.Backend.
func (b *Backend) GELU(out, x []float32) error {
	if len(x) == 0 || len(out) != len(x) {
		return fmt.Errorf("simd: backend: GELU with len(x) %d, len(out) %d (want equal, ≥ 1)", len(x), len(out))
	}
	if b.pool != nil && len(x) >= geluSplit {
		t := &b.geluT
		t.out, t.x = out, x
		b.pool.Run(t, len(x), 512)
		t.out, t.x = nil, nil
		return nil
	}
	geluErf(out, x)
	return nil
}

// geluSplit is the number of values from which GELU splits over the pool.
const geluSplit = 4096

// geluTask runs GELU on values [lo, hi).
type geluTask struct{ out, x []float32 }

// RunRange implements Task.
func (t *geluTask) RunRange(lo, hi int) { geluErf(t.out[lo:hi], t.x[lo:hi]) }

// Snake applies SnakeBeta h to m rows of its ch channels:
//
//	out[r][c] = x[r][c] + inv[c]·sin²(x[r][c]·a[c])
//
// with a = exp(α), inv = 1/(exp(β)+1e-9) from NewSnake. out may be x. It
// implements codec.Backend.
func (b *Backend) Snake(out, x []float32, m int, h int32) error {
	o, err := b.get(h, kindSnake, "snake")
	if err != nil {
		return err
	}
	ch := len(o.snake.a)
	if m < 1 || m > maxRows || len(x) != m*ch || len(out) != m*ch {
		return fmt.Errorf("simd: backend: Snake of %d rows of %d channels with len(x) %d, len(out) %d", m, ch, len(x), len(out))
	}
	if b.pool != nil && m*ch >= snakeSplit && m > 1 {
		t := &b.snakeT
		*t = snakeTask{l: active, out: out, x: x, a: o.snake.a, inv: o.snake.inv}
		b.pool.Run(t, m, 1)
		*t = snakeTask{}
		return nil
	}
	snakeRows(active, out, x, m, o.snake.a, o.snake.inv)
	return nil
}

// snakeSplit is the number of values from which Snake splits its rows over
// the pool (below it, a hand-off costs more than it saves).
const snakeSplit = 16384

// snakeTask runs SnakeBeta on rows [lo, hi).
type snakeTask struct {
	l      Level
	out, x []float32
	a, inv []float32
}

// RunRange implements Task.
func (t *snakeTask) RunRange(lo, hi int) {
	n := len(t.a)
	snakeRows(t.l, t.out[lo*n:hi*n], t.x[lo*n:hi*n], hi-lo, t.a, t.inv)
}

// Scale computes out[r][c] = x[r][c]·s[c] (LayerScale). out may be x. It
// implements codec.Backend.
func (b *Backend) Scale(out, x []float32, m int, s int32) error {
	o, err := b.get(s, kindVector, "scale")
	if err != nil {
		return err
	}
	n := o.cols
	if m < 1 || m > maxRows || len(x) != m*n || len(out) != m*n {
		return fmt.Errorf("simd: backend: Scale of %d rows of %d with len(x) %d, len(out) %d", m, n, len(x), len(out))
	}
	if b.pool != nil && m > 1 && m*n >= rowOpSplit {
		t := &b.lnT
		*t = rowOpTask{out: out, x: x, n: n, w: o.data}
		b.pool.Run(t, m, 1)
		*t = rowOpTask{}
		return nil
	}
	scaleRows(out, x, m, o.data)
	return nil
}

// scaleRows sets out[r][i] = x[r][i]·s[i] for m rows of len(s).
func scaleRows(out, x []float32, m int, s []float32) {
	n := len(s)
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		for i, v := range xr {
			or[i] = v * s[i]
		}
	}
}
