package codec

import (
	"errors"
	"fmt"
	"math"
)

// Model is a loaded codec decoder: its config and the handles of every
// weight on its Backend. A Model and its Streams are used by one goroutine
// at a time (the Backend may use worker threads inside a call).
type Model struct {
	cfg       Config
	b         Backend
	precision string
	spf       int // samples per frame

	rvqFirst, rvqRest   int32 // codebook tables (rest: 15 stacked)
	projFirst, projRest lin   // RVQ output projections
	preConv             int32
	inProj              lin
	layers              []layerW
	norm                int32
	outProj             lin
	ups                 []upW
	conv0               int32
	blocks              []blockW
	snakeOut, convOut   int32

	handles     []int32 // every handle above, for Close
	scratch     scratch
	passFrames  int    // stream-frames per graph pass (0: DefaultPassFrames)
	passHook    func() // called before each graph pass (SetPassHook)
	hook        func(Stage)
	add         AddBackend                // the backend's residual add, or nil
	convAdd     ConvAddBackend            // the backend's conv with a residual add, or nil
	resUnitB    ResUnitBackend            // the backend's residual unit in one call, or nil
	snakeConvTB SnakeConvTransposeBackend // the backend's Snake and transposed conv in one call, or nil
	closed      bool
}

type layerW struct {
	attnNorm, attnScale, mlpNorm, mlpScale int32
	qkv, o, gateUp, down                   lin
}

type upW struct {
	tconv, dw, lnW, lnB, gamma int32
	pw1, pw2                   lin
}

// lin is a linear layer's handle: a Conv of kernel 1 (conv) or a matrix.
// A Conv of kernel 1 is the same product, y = x·Wᵀ + bias, and on the
// native backend it runs on the conv GEMM, whose every row sums in the same
// order at any row count (so splits stay exact) and which keeps several
// rows in registers per weight load (so several frames per call read the
// weights once and run near the FMA peak); the int8 matrices keep
// NewMatrix's Hadamard-rotated format.
type lin struct {
	h    int32
	conv bool
}

// linear computes y[rows×out] = x[rows×in]·Wᵀ + bias on l.
func (m *Model) linear(y, x []float32, rows int, l lin) error {
	if l.conv {
		return m.b.Conv(y, x, rows, 1, l.h)
	}
	return m.b.MatMul(y, x, rows, l.h)
}

type resW struct{ snake1, conv1, snake2, conv2 int32 }

type blockW struct {
	snake, tconv int32
	res          [3]resW
}

// Config returns the model's geometry.
func (m *Model) Config() Config { return m.cfg }

// Precision returns the precision the model's matrices and convolutions were
// uploaded in.
func (m *Model) Precision() string { return m.precision }

// SamplesPerFrame returns the output samples per frame (1920 for the real
// codec).
func (m *Model) SamplesPerFrame() int { return m.spf }

// Backend returns the backend the model runs on.
func (m *Model) Backend() Backend { return m.b }

// SetStageHook installs fn (nil removes it), called after each stage of a
// decode with the stage just finished; benchmarks time the stages with it.
func (m *Model) SetStageHook(fn func(Stage)) { m.hook = fn }

func (m *Model) stage(s Stage) {
	if m.hook != nil {
		m.hook(s)
	}
}

// Close releases every handle the model holds on its backend. Streams of
// the model must be closed first; using the model afterwards is an error.
func (m *Model) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	var errs []error
	for _, h := range m.handles {
		if err := m.b.Free(h); err != nil {
			errs = append(errs, err)
		}
	}
	m.handles = nil
	return errors.Join(errs...)
}

// WeightBytes returns the bytes the model's weights occupy on the backend.
func (m *Model) WeightBytes() (int64, error) {
	var n int64
	for _, h := range m.handles {
		b, err := m.b.Bytes(h)
		if err != nil {
			return 0, err
		}
		n += b
	}
	return n, nil
}

// weightSet gives the f32 values of each expected tensor by name.
type weightSet func(name string) ([]float32, error)

// build uploads every weight of a checked weight set. hollow says the
// values are never read (Replay: the backend answers each upload from a
// prepared-weights file), so the derived tensors build computes (the RVQ
// tables, the fused q/k/v and gate/up matrices) share one zero buffer
// instead of fresh memory: the warm start's allocations were a fifth of it.
func build(cfg Config, get weightSet, b Backend, precision string, hollow bool) (_ *Model, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errorf(ErrArgs, "nil backend")
	}
	spec, err := parsePrecision(precision)
	if err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, b: b, precision: spec.String(), spf: cfg.SamplesPerFrame()}
	m.add, _ = b.(AddBackend)
	m.convAdd, _ = b.(ConvAddBackend)
	m.resUnitB, _ = b.(ResUnitBackend)
	m.snakeConvTB, _ = b.(SnakeConvTransposeBackend)
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	keep := func(h int32, err error) (int32, error) {
		if err == nil {
			m.handles = append(m.handles, h)
		}
		return h, err
	}
	w := func(name string) []float32 {
		if err != nil {
			return nil
		}
		var v []float32
		v, err = get(name)
		return v
	}
	// Each upload helper records the first error and returns -1 after it.
	vec := func(name string) int32 {
		v := w(name)
		if err != nil {
			return -1
		}
		var h int32
		h, err = keep(b.NewVector(v))
		if err != nil {
			err = fmt.Errorf("codec: upload %s: %w", name, err)
		}
		return h
	}
	// A linear layer is a Conv of kernel 1 except in int8 (see lin).
	matrix := func(rows, cols int, data, bias []float32, what, fam string, perFrame int) lin {
		if err != nil {
			return lin{h: -1}
		}
		l := lin{h: -1}
		if p := spec.layer(fam, perFrame); p == "int8" {
			l.h, err = keep(b.NewMatrix(rows, cols, data, bias, p))
		} else {
			l.conv = true
			l.h, err = keep(b.NewConv(rows, cols, 1, 1, data, bias, p))
		}
		if err != nil {
			err = fmt.Errorf("codec: upload %s: %w", what, err)
		}
		return l
	}
	conv := func(prefix, fam string, out, in, k, dil, perFrame int) int32 {
		wt, bias := w(prefix+".weight"), w(prefix+".bias")
		if err != nil {
			return -1
		}
		var h int32
		h, err = keep(b.NewConv(out, in, k, dil, wt, bias, spec.layer(fam, perFrame)))
		if err != nil {
			err = fmt.Errorf("codec: upload %s: %w", prefix, err)
		}
		return h
	}
	tconv := func(prefix, fam string, in, out, k, s, perFrame int) int32 {
		wt, bias := w(prefix+".weight"), w(prefix+".bias")
		if err != nil {
			return -1
		}
		var h int32
		h, err = keep(b.NewConvTranspose(in, out, k, s, wt, bias, spec.layer(fam, perFrame)))
		if err != nil {
			err = fmt.Errorf("codec: upload %s: %w", prefix, err)
		}
		return h
	}
	snake := func(prefix string, ch int) int32 {
		a, be := w(prefix+".alpha"), w(prefix+".beta")
		if err != nil {
			return -1
		}
		var h int32
		h, err = keep(b.NewSnake(ch, a, be))
		if err != nil {
			err = fmt.Errorf("codec: upload %s: %w", prefix, err)
		}
		return h
	}

	// derived returns room for n derived values (length 0, capacity n):
	// fresh memory, or when hollow one zero buffer shared by every call
	// (all its values stay zero: zero weights give zero tables and copies).
	var zeros []float32
	derived := func(n int) []float32 {
		if !hollow {
			return make([]float32, 0, n)
		}
		if cap(zeros) < n {
			zeros = make([]float32, n)
		}
		return zeros[:0:n]
	}

	// RVQ: codebook = embedding_sum / max(cluster_usage, 1e-5), in float32.
	q := cfg.CodebookDim / 2
	cb := cfg.CodebookSize
	rest := derived((Codebooks - 1) * cb * q)
	for k := 0; k < Codebooks && err == nil; k++ {
		p := codebookPrefix(k)
		sum, use := w(p+".embedding_sum"), w(p+".cluster_usage")
		if err != nil {
			break
		}
		table := derived(cb * q)[:cb*q]
		for r := 0; r < cb; r++ {
			u := use[r]
			if u < 1e-5 {
				u = 1e-5
			}
			for j := 0; j < q; j++ {
				table[r*q+j] = sum[r*q+j] / u
			}
		}
		if k == 0 {
			m.rvqFirst, err = keep(b.NewTable(cb, q, table))
		} else {
			rest = append(rest, table...)
		}
	}
	if err == nil {
		m.rvqRest, err = keep(b.NewTable((Codebooks-1)*cb, q, rest))
	}
	m.projFirst = matrix(cfg.CodebookDim, q, w("decoder.quantizer.rvq_first.output_proj.weight"), nil, "rvq_first.output_proj", FamTransformer, 1)
	m.projRest = matrix(cfg.CodebookDim, q, w("decoder.quantizer.rvq_rest.output_proj.weight"), nil, "rvq_rest.output_proj", FamTransformer, 1)
	m.preConv = conv("decoder.pre_conv.conv", FamTransformer, cfg.LatentDim, cfg.CodebookDim, 3, 1, 1)

	const pt = "decoder.pre_transformer."
	m.inProj = matrix(cfg.Hidden, cfg.LatentDim, w(pt+"input_proj.weight"), w(pt+"input_proj.bias"), "pre_transformer.input_proj", FamTransformer, 1)
	a := cfg.Heads * cfg.HeadDim
	for i := 0; i < cfg.Layers && err == nil; i++ {
		p := fmt.Sprintf(pt+"layers.%d.", i)
		var l layerW
		l.attnNorm = vec(p + "input_layernorm.weight")
		qkv := append(append(append(derived(3*a*cfg.Hidden), w(p+"self_attn.q_proj.weight")...),
			w(p+"self_attn.k_proj.weight")...), w(p+"self_attn.v_proj.weight")...)
		l.qkv = matrix(3*a, cfg.Hidden, qkv, nil, p+"self_attn.{q,k,v}_proj", FamTransformer, 1)
		l.o = matrix(cfg.Hidden, a, w(p+"self_attn.o_proj.weight"), nil, p+"self_attn.o_proj", FamTransformer, 1)
		l.attnScale = vec(p + "self_attn_layer_scale.scale")
		l.mlpNorm = vec(p + "post_attention_layernorm.weight")
		gu := append(append(derived(2*cfg.Intermediate*cfg.Hidden), w(p+"mlp.gate_proj.weight")...), w(p+"mlp.up_proj.weight")...)
		l.gateUp = matrix(2*cfg.Intermediate, cfg.Hidden, gu, nil, p+"mlp.{gate,up}_proj", FamTransformer, 1)
		l.down = matrix(cfg.Hidden, cfg.Intermediate, w(p+"mlp.down_proj.weight"), nil, p+"mlp.down_proj", FamTransformer, 1)
		l.mlpScale = vec(p + "mlp_layer_scale.scale")
		m.layers = append(m.layers, l)
	}
	m.norm = vec(pt + "norm.weight")
	m.outProj = matrix(cfg.LatentDim, cfg.Hidden, w(pt+"output_proj.weight"), w(pt+"output_proj.bias"), "pre_transformer.output_proj", FamTransformer, 1)

	L := cfg.LatentDim
	rows := 1 // rows per stream and frame at this point of the graph
	for j, r := range cfg.UpsamplingRatios {
		if err != nil {
			break
		}
		p := fmt.Sprintf("decoder.upsample.%d.", j)
		var u upW
		u.tconv = tconv(p+"0.conv", FamUpsample, L, L, r, r, rows)
		rows *= r
		dw, dwb := w(p+"1.dwconv.conv.weight"), w(p+"1.dwconv.conv.bias")
		if err == nil {
			u.dw, err = keep(b.NewDepthwise(L, 7, dw, dwb))
		}
		u.lnW = vec(p + "1.norm.weight")
		u.lnB = vec(p + "1.norm.bias")
		u.pw1 = matrix(4*L, L, w(p+"1.pwconv1.weight"), w(p+"1.pwconv1.bias"), p+"1.pwconv1", FamUpsample, rows)
		u.pw2 = matrix(L, 4*L, w(p+"1.pwconv2.weight"), w(p+"1.pwconv2.bias"), p+"1.pwconv2", FamUpsample, rows)
		u.gamma = vec(p + "1.gamma")
		m.ups = append(m.ups, u)
	}
	m.conv0 = conv("decoder.decoder.0.conv", FamVocoderIn, cfg.DecoderDim, L, 7, 1, rows)
	for i, s := range cfg.UpsampleRates {
		if err != nil {
			break
		}
		in, out := cfg.blockDims(i)
		p := fmt.Sprintf("decoder.decoder.%d.block.", 1+i)
		var bw blockW
		bw.snake = snake(p+"0", in)
		bw.tconv = tconv(p+"1.conv", FamTConv, in, out, 2*s, s, rows)
		rows *= s
		for u := 0; u < 3; u++ {
			r := fmt.Sprintf("%s%d.", p, 2+u)
			bw.res[u] = resW{
				snake1: snake(r+"act1", out),
				conv1:  conv(r+"conv1.conv", FamRes, out, out, 7, dilation(u), rows),
				snake2: snake(r+"act2", out),
				conv2:  conv(r+"conv2.conv", FamRes, out, out, 1, 1, rows),
			}
		}
		m.blocks = append(m.blocks, bw)
	}
	n := len(cfg.UpsampleRates)
	m.snakeOut = snake(fmt.Sprintf("decoder.decoder.%d", 1+n), cfg.outDim())
	m.convOut = conv(fmt.Sprintf("decoder.decoder.%d.conv", 2+n), FamOut, 1, cfg.outDim(), 7, 1, rows)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Precisions returns the precision names the codec takes: "fp32" (the
// reference), "bf16" (every matrix and convolution stored in bfloat16:
// half the weight bytes; the native backend computes in bf16 where the CPU
// has AVX512_BF16, else in fp32), "int8" (every matrix and
// convolution in the backend's int8) and "mixed" (see MixedRows). The
// backend must offer fp32, bf16 (convolutions) and int8. ParsePrecision
// also takes per-family specs ("bf16+transformer=fp32").
func Precisions() []string { return []string{"fp32", "bf16", "int8", "mixed"} }

// MixedRows is the largest rows per stream and frame at which precision
// "mixed" puts a layer in int8; layers with more rows stay fp32.
const MixedRows = 32

// dilation returns the dilation of residual unit u (1, 3, 9).
func dilation(u int) int { return int(math.Pow(3, float64(u))) }

// MACsPerFrame returns the multiply-accumulates of one frame through the
// decoder (matrices, convolutions and attention scores over a full window).
func (c *Config) MACsPerFrame() int64 {
	var n int64
	for _, m := range c.MACsPerFamily() {
		n += m
	}
	return n
}

// MACsPerFamily returns MACsPerFrame split by layer family (Families; the
// transformer's attention scores count with it, the upsample stages'
// depthwise convs with upsample).
func (c *Config) MACsPerFamily() map[string]int64 {
	f := map[string]int64{}
	q, cd, L, H := int64(c.CodebookDim/2), int64(c.CodebookDim), int64(c.LatentDim), int64(c.Hidden)
	a, I := int64(c.Heads*c.HeadDim), int64(c.Intermediate)
	f[FamTransformer] += 2 * q * cd // RVQ projections
	f[FamTransformer] += 3 * cd * L // pre_conv
	f[FamTransformer] += 2 * L * H  // input and output projections
	f[FamTransformer] += int64(c.Layers) * (4*a*H + 3*I*H + 2*a*int64(c.SlidingWindow))
	rows := int64(1)
	for _, r := range c.UpsamplingRatios {
		f[FamUpsample] += rows * int64(r) * L * L // transposed conv: r outputs per input row
		rows *= int64(r)
		f[FamUpsample] += rows * (7*L + 8*L*L) // depthwise, pwconv1, pwconv2
	}
	f[FamVocoderIn] += rows * 7 * L * int64(c.DecoderDim)
	for i, s := range c.UpsampleRates {
		in, out := c.blockDims(i)
		f[FamTConv] += rows * int64(in*out*2*s) // transposed conv
		rows *= int64(s)
		f[FamRes] += rows * 3 * (7 + 1) * int64(out*out)
	}
	f[FamOut] += rows * 7 * int64(c.outDim())
	return f
}
