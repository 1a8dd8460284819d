package speaker

import (
	"errors"
	"fmt"
)

// Encoder is a loaded ECAPA-TDNN speaker encoder: 24 kHz samples in, one
// embedding of enc_dim values out. An Encoder holds its scratch buffers and
// is used by one goroutine at a time (the Backend may use worker threads
// inside a call); once warm for a length, Embed allocates nothing.
type Encoder struct {
	cfg       Config
	b         Backend
	precision string
	mel       *Mel

	tdnn0  conv
	blocks []block
	mfa    conv
	// the ASP bottleneck on cat(x, mean, std): the x part runs as a conv
	// over time (no bias); mean and std are constant over time, so their
	// columns and the bias fold into one vector per call (aspMS, aspBias).
	aspX    conv
	aspMS   []float32 // [A][2·C_L]: the mean then std columns
	aspBias []float32 // [A]
	aspConv conv
	fc      conv

	handles []int32
	s       scratch
	closed  bool
}

// conv is an uploaded convolution and the geometry the graph needs.
type conv struct {
	h                       int32
	out, in, kernel, dilate int
}

type block struct {
	tdnn1, tdnn2, se1, se2 conv
	res                    []conv
}

// Config returns the encoder's geometry.
func (e *Encoder) Config() Config { return e.cfg }

// Dim returns the embedding size (enc_dim).
func (e *Encoder) Dim() int { return e.cfg.EncDim }

// Precision returns the precision the convolutions were uploaded in.
func (e *Encoder) Precision() string { return e.precision }

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
	n := int64(4 * (len(e.aspMS) + len(e.aspBias)))
	for _, h := range e.handles {
		b, err := e.b.Bytes(h)
		if err != nil {
			return 0, err
		}
		n += b
	}
	return n, nil
}

// build uploads every tensor (get returns a tensor's values by name, in
// the order of ExpectedTensors) and returns the encoder; on failure every
// handle made so far is released.
func build(cfg Config, get func(name string) ([]float32, error), b Backend, precision string) (enc *Encoder, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("speaker: %w", err)
	}
	if precision == "" {
		precision = "fp32"
	}
	e := &Encoder{cfg: cfg, b: b, precision: precision, mel: NewMel()}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	up := func(name string, out, in, k, d int) (conv, error) {
		w, err := get(Prefix + name + ".weight")
		if err != nil {
			return conv{}, err
		}
		bias, err := get(Prefix + name + ".bias")
		if err != nil {
			return conv{}, err
		}
		h, err := b.NewConv(out, in, k, d, w, bias, precision)
		if err != nil {
			return conv{}, fmt.Errorf("speaker: upload %s: %w", name, err)
		}
		e.handles = append(e.handles, h)
		return conv{h: h, out: out, in: in, kernel: k, dilate: d}, nil
	}
	L := len(cfg.Channels) - 1
	if e.tdnn0, err = up("blocks.0.conv", cfg.Channels[0], cfg.MelDim, cfg.Kernels[0], cfg.Dilations[0]); err != nil {
		return nil, err
	}
	cat := 0
	for i := 1; i < L; i++ {
		ci, s := cfg.Channels[i], cfg.Res2NetScale
		p := fmt.Sprintf("blocks.%d.", i)
		var bl block
		if bl.tdnn1, err = up(p+"tdnn1.conv", ci, cfg.Channels[i-1], 1, 1); err != nil {
			return nil, err
		}
		for j := 0; j < s-1; j++ {
			c, err := up(fmt.Sprintf("%sres2net_block.blocks.%d.conv", p, j), ci/s, ci/s, cfg.Kernels[i], cfg.Dilations[i])
			if err != nil {
				return nil, err
			}
			bl.res = append(bl.res, c)
		}
		if bl.tdnn2, err = up(p+"tdnn2.conv", ci, ci, 1, 1); err != nil {
			return nil, err
		}
		if bl.se1, err = up(p+"se_block.conv1", cfg.SEChannels, ci, 1, 1); err != nil {
			return nil, err
		}
		if bl.se2, err = up(p+"se_block.conv2", ci, cfg.SEChannels, 1, 1); err != nil {
			return nil, err
		}
		e.blocks = append(e.blocks, bl)
		cat += ci
	}
	cl, A := cfg.Channels[L], cfg.AttentionChannels
	if e.mfa, err = up("mfa.conv", cl, cat, cfg.Kernels[L], cfg.Dilations[L]); err != nil {
		return nil, err
	}
	w, err := get(Prefix + "asp.tdnn.conv.weight")
	if err != nil {
		return nil, err
	}
	if e.aspBias, err = get(Prefix + "asp.tdnn.conv.bias"); err != nil {
		return nil, err
	}
	wx := make([]float32, A*cl)
	e.aspMS = make([]float32, A*2*cl)
	for a := 0; a < A; a++ {
		copy(wx[a*cl:(a+1)*cl], w[a*3*cl:a*3*cl+cl])
		copy(e.aspMS[a*2*cl:(a+1)*2*cl], w[a*3*cl+cl:(a+1)*3*cl])
	}
	h, err := b.NewConv(A, cl, 1, 1, wx, nil, precision)
	if err != nil {
		return nil, fmt.Errorf("speaker: upload asp.tdnn.conv: %w", err)
	}
	e.handles = append(e.handles, h)
	e.aspX = conv{h: h, out: A, in: cl, kernel: 1, dilate: 1}
	if e.aspConv, err = up("asp.conv", cl, A, 1, 1); err != nil {
		return nil, err
	}
	if e.fc, err = up("fc", cfg.EncDim, 2*cl, 1, 1); err != nil {
		return nil, err
	}
	return e, nil
}
