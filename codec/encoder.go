package codec

import (
	"errors"
	"fmt"
	"math"
)

// Encoder is a loaded codec encoder ("speech tokenizer" encode half): 24 kHz
// samples in, Codebooks codes per frame of SamplesPerFrame samples out. Its
// graph runs on the same Backend as the decoder: the SEANet convolutions
// (causal, zero left padding), the windowed transformer (LayerNorm, RoPE,
// GELU MLP, LayerScale), the stride-2 downsample and the split RVQ's
// input projections and codeword scores are backend calls on handles; the
// ELU, the residual sums and the nearest-codeword choice are plain loops.
// An Encoder is used by one goroutine at a time.
//
// The clip goes through the graph in chunks of EncodeChunkFrames frames,
// each convolution keeping the tail of its input between chunks, so memory
// stays bounded for long clips and the codes equal those of one pass.
type Encoder struct {
	cfg       EncoderConfig
	b         Backend
	precision string
	spf       int

	first  int32 // encoder.encoder.layers.0
	stages []encStage
	last   int32 // the conv after the strides
	layers []encLayer
	down   int32 // the ×2 downsample (grouped: kernel 2 over 2·hidden inputs)
	proj   [2]int32
	score  [Codebooks]int32 // codeword tables as k=1 convs: scores r·e
	table  [Codebooks]int32 // the same tables for Embed
	norm   [Codebooks][]float32
	kv     int32
	elu    ELUBackend     // the backend's ELU, or nil
	add    AddBackend     // the backend's residual add, or nil
	near   NearestBackend // the backend's nearest-codeword search, or nil
	hook   func(EncodeStage)

	handles []int32
	sc      encScratch
	closed  bool
}

type encStage struct {
	ratio, ch int
	res       []encRes
	conv      int32 // strided conv, grouped: kernel 2 over ratio·ch inputs
}

type encRes struct {
	conv1, conv2 int32
	hist         int // history rows of conv1: (kernel−1)·dilation
}

type encLayer struct {
	ln1w, ln1b, ln2w, ln2b, attnScale, mlpScale int32
	qkv, o, fc1, fc2                            int32
}

// EncodeChunkFrames is the number of frames of codes the encoder takes
// through its graph at a time (40 frames, 3.2 s of audio at the real
// geometry).
const EncodeChunkFrames = 40

// Config returns the encoder's geometry.
func (e *Encoder) Config() EncoderConfig { return e.cfg }

// SamplesPerFrame returns the input samples per frame of codes (1920 for
// the real codec).
func (e *Encoder) SamplesPerFrame() int { return e.spf }

// Precision returns the precision the encoder's convolutions and matrices
// were uploaded in.
func (e *Encoder) Precision() string { return e.precision }

// EncoderPrecisions returns the precisions the encoder takes: "fp32" (the
// reference) and "bf16" (convolutions and matrices stored in bfloat16,
// computed in fp32). Codebooks, norms and scales are always fp32.
func EncoderPrecisions() []string { return []string{"fp32", "bf16"} }

// Close releases every handle the encoder holds; using it afterwards is an
// error.
func (e *Encoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	var errs []error
	for _, h := range e.handles {
		if err := e.b.Free(h); err != nil {
			errs = append(errs, err)
		}
	}
	e.handles = nil
	return errors.Join(errs...)
}

// WeightBytes returns the bytes the encoder's weights occupy on the backend.
func (e *Encoder) WeightBytes() (int64, error) {
	var n int64
	for _, h := range e.handles {
		b, err := e.b.Bytes(h)
		if err != nil {
			return 0, err
		}
		n += b
	}
	return n, nil
}

// MACsPerFrame returns the multiply-accumulates of one frame of codes
// through the encoder (convolutions, matrices, attention over a full
// window, the 16 codeword searches).
func (c *EncoderConfig) MACsPerFrame() int64 {
	rows := int64(c.SamplesPerFrame()) // rows per frame at the current stage
	F := int64(c.NumFilters)
	n := rows * F * int64(c.KernelSize)
	ch := F
	for s := range c.Ratios {
		r := int64(c.Ratios[len(c.Ratios)-1-s])
		n += int64(c.ResidualLayers) * rows * (ch*(ch/int64(c.Compress))*int64(c.ResidualKernelSize) + ch*(ch/int64(c.Compress)))
		rows /= r
		n += rows * 2 * ch * ch * 2 * r
		ch *= 2
	}
	H, A, I := int64(c.Hidden), int64(c.Heads*c.HeadDim), int64(c.Intermediate)
	n += rows * H * ch * int64(c.LastKernelSize)
	n += rows * int64(c.Layers) * (4*A*H + 2*I*H + 2*A*int64(c.SlidingWindow))
	n += H * H * 2 * EncodeDownsample
	Q := int64(c.CodebookDim)
	n += 2*Q*H + Codebooks*int64(c.CodebookSize)*Q
	return n
}

// EncodeStage names a part of the encoder for timing (see SetStageHook).
type EncodeStage int

// The encoder's stages, in graph order.
const (
	EncodeSEANet      EncodeStage = iota // the convolutions, ELUs and residual units
	EncodeTransformer                    // the windowed transformer
	EncodeQuantize                       // the downsample and the 16 codeword searches
	NumEncodeStages
)

// String returns the stage's name.
func (s EncodeStage) String() string {
	switch s {
	case EncodeSEANet:
		return "seanet"
	case EncodeTransformer:
		return "transformer"
	case EncodeQuantize:
		return "quantize"
	}
	return "unknown"
}

// SetStageHook installs fn (nil removes it), called after each stage of
// each chunk with the stage just finished; benchmarks time the stages with
// it.
func (e *Encoder) SetStageHook(fn func(EncodeStage)) { e.hook = fn }

func (e *Encoder) stage(s EncodeStage) {
	if e.hook != nil {
		e.hook(s)
	}
}

// Frames returns the frames of codes n samples give: ceil(n / SamplesPerFrame).
func (e *Encoder) Frames(n int) int { return e.cfg.Frames(n) }

// buildEncoder uploads every weight of a checked weight set.
func buildEncoder(cfg EncoderConfig, get weightSet, b Backend, precision string) (_ *Encoder, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errorf(ErrArgs, "nil backend")
	}
	if precision != "fp32" && precision != "bf16" {
		return nil, errorf(ErrArgs, "encoder precision %q: want fp32 or bf16", precision)
	}
	e := &Encoder{cfg: cfg, b: b, precision: precision, spf: cfg.SamplesPerFrame(), kv: -1}
	e.elu, _ = b.(ELUBackend)
	e.add, _ = b.(AddBackend)
	e.near, _ = b.(NearestBackend)
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	keep := func(what string, h int32, e2 error) int32 {
		if err != nil {
			return -1
		}
		if e2 != nil {
			err = fmt.Errorf("codec: upload %s: %w", what, e2)
			return -1
		}
		e.handles = append(e.handles, h)
		return h
	}
	w := func(name string) []float32 {
		if err != nil {
			return nil
		}
		var v []float32
		v, err = get(name)
		return v
	}
	vec := func(name string) int32 {
		v := w(name)
		if err != nil {
			return -1
		}
		h, e2 := b.NewVector(v)
		return keep(name, h, e2)
	}
	// conv uploads a stride-1 conv (dilation dil) of prefix.weight/.bias.
	conv := func(prefix string, out, in, k, dil int, prec string) int32 {
		wt, bias := w(prefix+".weight"), w(prefix+".bias")
		if err != nil {
			return -1
		}
		h, e2 := b.NewConv(out, in, k, dil, wt, bias, prec)
		return keep(prefix, h, e2)
	}
	// strided uploads a conv of kernel 2·r and stride r as the equivalent
	// kernel-2 conv over rows grouped r at a time (r·in inputs):
	// w'[o][p·in+i][j] = w[o][i][j·r+p].
	strided := func(name string, wt, bias []float32, out, in, r int) int32 {
		if err != nil {
			return -1
		}
		g := make([]float32, out*r*in*2)
		for o := 0; o < out; o++ {
			for i := 0; i < in; i++ {
				for j := 0; j < 2; j++ {
					for p := 0; p < r; p++ {
						g[(o*r*in+p*in+i)*2+j] = wt[(o*in+i)*2*r+j*r+p]
					}
				}
			}
		}
		h, e2 := b.NewConv(out, r*in, 2, 1, g, bias, precision)
		return keep(name, h, e2)
	}
	matrix := func(name string, rows, cols int, data []float32) int32 {
		if err != nil {
			return -1
		}
		h, e2 := b.NewConv(rows, cols, 1, 1, data, nil, precision)
		return keep(name, h, e2)
	}

	const se = "encoder.encoder.layers."
	e.first = conv(se+"0.conv", cfg.NumFilters, 1, cfg.KernelSize, 1, precision)
	idx, ch := 1, cfg.NumFilters
	for s := range cfg.Ratios {
		st := encStage{ratio: cfg.Ratios[len(cfg.Ratios)-1-s], ch: ch}
		dil := 1
		for range cfg.ResidualLayers {
			p := fmt.Sprintf("%s%d.block.", se, idx)
			st.res = append(st.res, encRes{
				conv1: conv(p+"1.conv", ch/cfg.Compress, ch, cfg.ResidualKernelSize, dil, precision),
				conv2: conv(p+"3.conv", ch, ch/cfg.Compress, 1, 1, precision),
				hist:  (cfg.ResidualKernelSize - 1) * dil,
			})
			dil *= cfg.DilationGrowth
			idx++
		}
		idx++
		p := fmt.Sprintf("%s%d.conv", se, idx)
		st.conv = strided(p, w(p+".weight"), w(p+".bias"), 2*ch, ch, st.ratio)
		idx++
		ch *= 2
		e.stages = append(e.stages, st)
	}
	idx++
	e.last = conv(fmt.Sprintf("%s%d.conv", se, idx), cfg.Hidden, ch, cfg.LastKernelSize, 1, precision)

	H, A := cfg.Hidden, cfg.Heads*cfg.HeadDim
	for i := 0; i < cfg.Layers && err == nil; i++ {
		p := fmt.Sprintf("encoder.encoder_transformer.layers.%d.", i)
		var l encLayer
		l.ln1w, l.ln1b = vec(p+"input_layernorm.weight"), vec(p+"input_layernorm.bias")
		qkv := append(append(append(make([]float32, 0, 3*A*H), w(p+"self_attn.q_proj.weight")...),
			w(p+"self_attn.k_proj.weight")...), w(p+"self_attn.v_proj.weight")...)
		l.qkv = matrix(p+"self_attn.{q,k,v}_proj", 3*A, H, qkv)
		l.o = matrix(p+"self_attn.o_proj", H, A, w(p+"self_attn.o_proj.weight"))
		l.attnScale = vec(p + "self_attn_layer_scale.scale")
		l.ln2w, l.ln2b = vec(p+"post_attention_layernorm.weight"), vec(p+"post_attention_layernorm.bias")
		l.fc1 = matrix(p+"mlp.fc1", cfg.Intermediate, H, w(p+"mlp.fc1.weight"))
		l.fc2 = matrix(p+"mlp.fc2", H, cfg.Intermediate, w(p+"mlp.fc2.weight"))
		l.mlpScale = vec(p + "mlp_layer_scale.scale")
		e.layers = append(e.layers, l)
	}
	e.down = strided("encoder.downsample.conv", w("encoder.downsample.conv.weight"), nil, H, H, EncodeDownsample)

	Q, N := cfg.CodebookDim, cfg.CodebookSize
	for g, name := range []string{"semantic", "acoustic"} {
		p := "encoder.quantizer." + name + "_residual_vector_quantizer.input_proj"
		e.proj[g] = matrix(p, Q, H, w(p+".weight"))
	}
	for k := 0; k < Codebooks && err == nil; k++ {
		p := encoderCodebookPrefix(k)
		sum, use := w(p+"embed_sum"), w(p+"cluster_usage")
		if err != nil {
			break
		}
		// codeword = embed_sum / max(cluster_usage, 1e-5), in float32.
		t := make([]float32, N*Q)
		norm := make([]float32, N)
		for r := 0; r < N; r++ {
			u := max(use[r], 1e-5)
			var s float64
			for j := 0; j < Q; j++ {
				v := sum[r*Q+j] / u
				t[r*Q+j] = v
				s += float64(v) * float64(v)
			}
			norm[r] = float32(s)
			if math.IsInf(s, 0) {
				err = errorf(ErrNonFinite, "tensor %sembed_sum: codeword %d has an infinite norm", p, r)
			}
		}
		e.norm[k] = norm
		h, e2 := b.NewConv(N, Q, 1, 1, t, nil, "fp32")
		e.score[k] = keep(p+"embed_sum (scores)", h, e2)
		h, e2 = b.NewTable(N, Q, t)
		e.table[k] = keep(p+"embed_sum (table)", h, e2)
	}
	if err != nil {
		return nil, err
	}
	h, e2 := b.NewWindowKV(cfg.Layers, cfg.Heads, cfg.HeadDim, cfg.SlidingWindow)
	e.kv = keep("encoder attention state", h, e2)
	if err != nil {
		return nil, err
	}
	e.sc.init(&cfg)
	return e, nil
}
