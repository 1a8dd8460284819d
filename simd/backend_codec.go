package simd

import (
	"fmt"
	"math"
)

// This file holds the codec decoder's handle kinds (codec.Backend): causal
// dilated and transposed convolutions, depthwise convolutions, SnakeBeta
// parameters and sliding-window attention states. Their ops are in
// backend_codec_ops.go and backend_codec_attention.go.

// convWeights is a Conv1d or ConvTranspose1d weight packed for the fp32
// GEMM (conv.go).
//
// A Conv1d (out×in×kernel) is the matrix W'[o][j·in+i] = w[o][i][j]: row t
// of its im2col input is x[t], x[t+d], … x[t+(k−1)d] one after another, so
// for dilation 1 it is a view of the time-major input itself (no copy).
//
// A ConvTranspose1d (in×out×kernel) is the matrix W'[j·out+o][i] = w[i][o][j]:
// one GEMM gives every input row's k·out contributions, then an overlap-add
// places them at output rows t·stride+j.
type convWeights struct {
	out, in, kernel int
	dilation        int // Conv1d
	stride          int // ConvTranspose1d
	precision       string
	f32             *F32Matrix
	bf              *bf16Panels // precision "bf16" (conv_bf16.go)
	q8c             *q8Conv     // precision "int8" (conv_q8rows.go)
	bias            []float32   // nil: none
}

// bytes returns the bytes the packed weights and bias occupy.
func (c *convWeights) bytes() int64 {
	n := int64(4 * len(c.bias))
	if c.f32 != nil {
		n += int64(c.f32.Bytes())
	}
	if c.q8c != nil {
		n += int64(c.q8c.bytes())
	}
	if c.bf != nil {
		n += int64(c.bf.bytes())
	}
	return n
}

// gemmWeights returns the conv GEMM's weights: the dims (and fp32 data)
// and, for bf16, the panel data, or nil where the active level computes
// with VDPBF16PS (runConvJobs then takes the pair layout).
func (c *convWeights) gemmWeights() (*F32Matrix, []uint16) {
	if c.bf == nil {
		return c.f32, nil
	}
	if c.dotPath() {
		return &c.bf.dims, nil
	}
	return &c.bf.dims, c.bf.panelData()
}

// dotPath reports whether c computes with VDPBF16PS at the active level:
// bf16 weights in the pair layout on a level that has the instruction.
// There the row-list kernel also adds the bias, and a ConvAdd's residual,
// in its stores.
func (c *convWeights) dotPath() bool {
	return c.bf != nil && c.bf.dot != nil && bf16Dot(active)
}

// depthwiseWeights is a depthwise Conv1d, stored tap-major: w[j·ch+c] =
// w_torch[c][0][j].
type depthwiseWeights struct {
	ch, kernel int
	w          []float32
	bias       []float32 // nil: none
}

// snakeParams holds SnakeBeta's per-channel factors, computed at load in
// float32 as PyTorch does: a = exp(α), inv = 1/(exp(β) + 1e-9).
type snakeParams struct {
	a, inv []float32
}

// windowKV is one stream's sliding-window attention state: per layer a ring
// of window positions of k and v (heads·headDim each), and the position the
// next row of each layer must have.
type windowKV struct {
	layers, heads, headDim, window int
	k, v                           [][]float32 // [layer][slot·heads·headDim]
	next                           []int32     // per layer
}

func (w *windowKV) bytes() int64 {
	return int64(4*2*w.layers*w.window*w.heads*w.headDim + 4*w.layers)
}

// checkConvBias checks an optional bias of n values.
func checkConvBias(what string, bias []float32, n int) error {
	if bias == nil {
		return nil
	}
	if len(bias) != n {
		return fmt.Errorf("simd: backend: %s given a bias of %d values, want %d", what, len(bias), n)
	}
	return checkFinite(what+" bias", bias)
}

// convPrecisions names the precisions NewConv and NewConvTranspose accept.
const convPrecisions = "fp32, bf16 or int8"

// NewConv uploads a Conv1d weight w[o][i][j] (out×in×kernel, PyTorch
// layout) with dilation and an optional bias (nil or out values). Precision
// "fp32" is the reference; "bf16" rounds the weights to bfloat16 (half the
// bytes; converted exactly in the kernel, summed in fp32 with FMA, the same
// bits at every level: conv_bf16.go); "int8" quantizes the weights with one
// scale per output and tap and each input row with one scale at run time,
// sums each tap exactly in int32 and scales it into fp32 (conv_q8rows.go;
// any channel count, the same bits at every level). It implements
// codec.Backend.
func (b *Backend) NewConv(out, in, kernel, dilation int, w, bias []float32, precision string) (int32, error) {
	sig := sigConv("conv", out, in, kernel, dilation, bias != nil, precision)
	if b.replaying() {
		return b.replayNext(sig)
	}
	what := fmt.Sprintf("conv %d×%d×%d dilation %d", out, in, kernel, dilation)
	if out < 1 || in < 1 || kernel < 1 || dilation < 1 || out > 1<<20 || in > 1<<20 || kernel > 1<<10 || dilation > 1<<10 ||
		int64(out)*int64(in)*int64(kernel) > 1<<30 {
		return -1, fmt.Errorf("simd: backend: %s: sizes must be ≥ 1 (out, in ≤ 2²⁰, kernel, dilation ≤ 1024, at most 2³⁰ weights)", what)
	}
	if len(w) != out*in*kernel {
		return -1, fmt.Errorf("simd: backend: %s given %d weights, want %d", what, len(w), out*in*kernel)
	}
	if err := checkFinite(what, w); err != nil {
		return -1, err
	}
	if err := checkConvBias(what, bias, out); err != nil {
		return -1, err
	}
	// W'[o][j·in+i] = w[o][i][j]
	k := kernel * in
	wp := make([]float32, out*k)
	for o := 0; o < out; o++ {
		for i := 0; i < in; i++ {
			for j := 0; j < kernel; j++ {
				wp[o*k+j*in+i] = w[(o*in+i)*kernel+j]
			}
		}
	}
	c := &convWeights{out: out, in: in, kernel: kernel, dilation: dilation, precision: precision}
	if err := c.pack(wp, out, k, precision, what); err != nil {
		return -1, err
	}
	if bias != nil {
		c.bias = append([]float32(nil), bias...)
	}
	return b.made(object{kind: kindConv, rows: out, cols: in, conv: c}, sig), nil
}

// pack stores W' (rows×cols) in the precision asked for.
func (c *convWeights) pack(wp []float32, rows, cols int, precision, what string) error {
	switch precision {
	case "fp32":
		m, err := NewF32Matrix(wp, rows, cols)
		if err != nil {
			return fmt.Errorf("simd: backend: %s: %w", what, err)
		}
		c.f32 = m
	case "bf16":
		m, err := newBF16Panels(wp, rows, cols)
		if err != nil {
			return fmt.Errorf("simd: backend: %s: %w", what, err)
		}
		c.bf = m
	case "int8":
		taps := 1 // a transposed conv's W' is one tap of in inputs
		if c.dilation >= 1 {
			taps = c.kernel
		}
		m, err := newQ8Conv(wp, rows, cols, taps)
		if err != nil {
			return fmt.Errorf("simd: backend: %s: %w", what, err)
		}
		c.q8c = m
	default:
		return fmt.Errorf("simd: backend: %s: precision %q unknown (want %s)", what, precision, convPrecisions)
	}
	return nil
}

// NewConvTranspose uploads a ConvTranspose1d weight w[i][o][j]
// (in×out×kernel, PyTorch layout), kernel ≥ stride, with an optional bias
// (nil or out values), in precision "fp32", "bf16" or "int8" (as NewConv). It
// implements codec.Backend.
func (b *Backend) NewConvTranspose(in, out, kernel, stride int, w, bias []float32, precision string) (int32, error) {
	sig := sigConv("convT", in, out, kernel, stride, bias != nil, precision)
	if b.replaying() {
		return b.replayNext(sig)
	}
	what := fmt.Sprintf("transposed conv %d×%d×%d stride %d", in, out, kernel, stride)
	if out < 1 || in < 1 || stride < 1 || kernel < stride || out > 1<<20 || in > 1<<20 || kernel > 1<<10 ||
		int64(out)*int64(in)*int64(kernel) > 1<<30 {
		return -1, fmt.Errorf("simd: backend: %s: sizes must be ≥ 1 with kernel ≥ stride (in, out ≤ 2²⁰, kernel ≤ 1024, at most 2³⁰ weights)", what)
	}
	if len(w) != out*in*kernel {
		return -1, fmt.Errorf("simd: backend: %s given %d weights, want %d", what, len(w), out*in*kernel)
	}
	if err := checkFinite(what, w); err != nil {
		return -1, err
	}
	if err := checkConvBias(what, bias, out); err != nil {
		return -1, err
	}
	// W'[j·out+o][i] = w[i][o][j]
	rows := kernel * out
	wp := make([]float32, rows*in)
	for i := 0; i < in; i++ {
		for o := 0; o < out; o++ {
			for j := 0; j < kernel; j++ {
				wp[(j*out+o)*in+i] = w[(i*out+o)*kernel+j]
			}
		}
	}
	c := &convWeights{out: out, in: in, kernel: kernel, stride: stride, precision: precision}
	if err := c.pack(wp, rows, in, precision, what); err != nil {
		return -1, err
	}
	if bias != nil {
		c.bias = append([]float32(nil), bias...)
	}
	return b.made(object{kind: kindConvT, rows: out, cols: in, conv: c}, sig), nil
}

// NewDepthwise uploads a depthwise Conv1d weight w[c][0][j] (ch×1×kernel)
// with an optional bias (nil or ch values). It implements codec.Backend.
func (b *Backend) NewDepthwise(ch, kernel int, w, bias []float32) (int32, error) {
	if b.replaying() {
		return b.replayNext(sigDepthwise(ch, kernel, bias != nil))
	}
	what := fmt.Sprintf("depthwise conv %d×%d", ch, kernel)
	if ch < 1 || kernel < 1 || ch > 1<<24 || kernel > 1<<10 {
		return -1, fmt.Errorf("simd: backend: %s: sizes must be ≥ 1 (channels ≤ 2²⁴, kernel ≤ 1024)", what)
	}
	if len(w) != ch*kernel {
		return -1, fmt.Errorf("simd: backend: %s given %d weights, want %d", what, len(w), ch*kernel)
	}
	if err := checkFinite(what, w); err != nil {
		return -1, err
	}
	if err := checkConvBias(what, bias, ch); err != nil {
		return -1, err
	}
	d := &depthwiseWeights{ch: ch, kernel: kernel, w: make([]float32, ch*kernel)}
	for c := 0; c < ch; c++ {
		for j := 0; j < kernel; j++ {
			d.w[j*ch+c] = w[c*kernel+j]
		}
	}
	if bias != nil {
		d.bias = append([]float32(nil), bias...)
	}
	return b.made(object{kind: kindDepthwise, rows: kernel, cols: ch, dw: d}, sigDepthwise(ch, kernel, bias != nil)), nil
}

// NewSnake uploads SnakeBeta parameters (log scale, as stored) for ch
// channels: Snake computes y = x + sin²(x·exp(α[c])) / (exp(β[c]) + 1e-9),
// with exp(α) and 1/(exp(β)+1e-9) computed here in float32. It implements
// codec.Backend.
func (b *Backend) NewSnake(ch int, alpha, beta []float32) (int32, error) {
	if b.replaying() {
		return b.replayNext(sigSnake(ch))
	}
	if ch < 1 || len(alpha) != ch || len(beta) != ch {
		return -1, fmt.Errorf("simd: backend: snake of %d channels given %d α and %d β values", ch, len(alpha), len(beta))
	}
	if err := checkFinite("snake alpha", alpha); err != nil {
		return -1, err
	}
	if err := checkFinite("snake beta", beta); err != nil {
		return -1, err
	}
	s := &snakeParams{a: make([]float32, ch), inv: make([]float32, ch)}
	for c := 0; c < ch; c++ {
		a := float32(math.Exp(float64(alpha[c])))
		e := float32(math.Exp(float64(beta[c])))
		d := e + float32(1e-9)
		s.a[c], s.inv[c] = a, 1/d
		if math.IsInf(float64(a), 0) || math.IsInf(float64(s.inv[c]), 0) || a == 0 {
			return -1, fmt.Errorf("simd: backend: snake channel %d: α %v, β %v overflow float32", c, alpha[c], beta[c])
		}
	}
	return b.made(object{kind: kindSnake, cols: ch, snake: s}, sigSnake(ch)), nil
}

// NewWindowKV allocates one stream's sliding-window attention state: for
// each of layers layers, the k and v (heads×headDim) of the last window
// positions. Rows must arrive at positions 0, 1, 2, … per layer (ResetKV
// starts again at 0). It implements codec.Backend.
func (b *Backend) NewWindowKV(layers, heads, headDim, window int) (int32, error) {
	if layers < 1 || heads < 1 || headDim < 2 || headDim%2 != 0 || window < 1 || headDim > 1<<12 ||
		int64(layers)*int64(heads)*int64(headDim)*int64(window) > 1<<30 {
		return -1, fmt.Errorf("simd: backend: window kv %d layers × %d heads × %d × %d positions: sizes must be ≥ 1, head_dim even ≤ 4096, at most 2³⁰ values", layers, heads, headDim, window)
	}
	w := &windowKV{layers: layers, heads: heads, headDim: headDim, window: window,
		k: make([][]float32, layers), v: make([][]float32, layers), next: make([]int32, layers)}
	for l := range w.k {
		w.k[l] = make([]float32, window*heads*headDim)
		w.v[l] = make([]float32, window*heads*headDim)
	}
	return b.put(object{kind: kindWindowKV, win: w}), nil
}

// ResetKV empties a window KV state: the next row of every layer is at
// position 0. It implements codec.Backend.
func (b *Backend) ResetKV(h int32) error {
	o, err := b.get(h, kindWindowKV, "window kv")
	if err != nil {
		return err
	}
	w := o.win
	for l := range w.k {
		clear(w.k[l])
		clear(w.v[l])
	}
	clear(w.next)
	return nil
}
