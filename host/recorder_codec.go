package host

import (
	"errors"
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/wasm/abi"
)

// The recorder's codec.Backend: the host loads a codec decoder natively
// through it (codec.Load, codec.NewSynthetic, OpenCodec) and the guest
// replays the log it keeps (codec.Replay on a replaying wasm.Backend), so
// the codec's weights are host-owned and never pass through guest memory.
// Its ops translate host-made handles, so the model also runs natively on
// them.
var _ codec.Backend = (*recorder)(nil)

// errNoCodec is the failure of a codec call on a native backend without
// the codec's operations.
var errNoCodec = errors.New("host: the native backend has no codec operations")

// cb returns the native codec backend.
func (r *recorder) cb() (codec.Backend, error) {
	if r.s.codec == nil {
		return nil, errNoCodec
	}
	return r.s.codec, nil
}

// NewConv implements codec.Backend.
func (r *recorder) NewConv(out, in, kernel, dilation int, w, bias []float32, precision string) (int32, error) {
	cb, err := r.cb()
	if err != nil {
		return -1, err
	}
	h, err := cb.NewConv(out, in, kernel, dilation, w, bias, precision)
	return r.add(h, err, abi.Created{Kind: abi.KindConv, Dims: []int{out, in, kernel, dilation}, Prec: precision, Bias: bias != nil},
		4*int64(len(w)+len(bias)))
}

// NewConvTranspose implements codec.Backend.
func (r *recorder) NewConvTranspose(in, out, kernel, stride int, w, bias []float32, precision string) (int32, error) {
	cb, err := r.cb()
	if err != nil {
		return -1, err
	}
	h, err := cb.NewConvTranspose(in, out, kernel, stride, w, bias, precision)
	return r.add(h, err, abi.Created{Kind: abi.KindConvTranspose, Dims: []int{in, out, kernel, stride}, Prec: precision, Bias: bias != nil},
		4*int64(len(w)+len(bias)))
}

// NewDepthwise implements codec.Backend.
func (r *recorder) NewDepthwise(ch, kernel int, w, bias []float32) (int32, error) {
	cb, err := r.cb()
	if err != nil {
		return -1, err
	}
	h, err := cb.NewDepthwise(ch, kernel, w, bias)
	return r.add(h, err, abi.Created{Kind: abi.KindDepthwise, Dims: []int{ch, kernel}, Bias: bias != nil}, 4*int64(len(w)+len(bias)))
}

// NewSnake implements codec.Backend.
func (r *recorder) NewSnake(ch int, alpha, beta []float32) (int32, error) {
	cb, err := r.cb()
	if err != nil {
		return -1, err
	}
	h, err := cb.NewSnake(ch, alpha, beta)
	return r.add(h, err, abi.Created{Kind: abi.KindSnake, Dims: []int{ch}}, 8*int64(ch))
}

// NewWindowKV implements codec.Backend (a state made here is host-owned:
// guests cannot write it).
func (r *recorder) NewWindowKV(layers, heads, headDim, window int) (int32, error) {
	cb, err := r.cb()
	if err != nil {
		return -1, err
	}
	h, err := cb.NewWindowKV(layers, heads, headDim, window)
	return r.add(h, err, abi.Created{Kind: abi.KindWindowKV, Dims: []int{layers, heads, headDim, window}}, windowKVBytes(layers, heads, headDim, window))
}

// ResetKV implements codec.Backend.
func (r *recorder) ResetKV(h int32) error {
	cb, err := r.cb()
	if err != nil {
		return err
	}
	n, err := r.nat(h)
	if err != nil {
		return err
	}
	return cb.ResetKV(n)
}

// convOp translates the weight handle of a conv-like op.
func (r *recorder) convOp(w int32) (codec.Backend, int32, error) {
	cb, err := r.cb()
	if err != nil {
		return nil, -1, err
	}
	n, err := r.nat(w)
	return cb, n, err
}

// Conv implements codec.Backend.
func (r *recorder) Conv(y, x []float32, m, batch int, w int32) error {
	cb, n, err := r.convOp(w)
	if err != nil {
		return err
	}
	return cb.Conv(y, x, m, batch, n)
}

// ConvTranspose implements codec.Backend.
func (r *recorder) ConvTranspose(y, x []float32, m, batch int, w int32, carry []float32) error {
	cb, n, err := r.convOp(w)
	if err != nil {
		return err
	}
	return cb.ConvTranspose(y, x, m, batch, n, carry)
}

// Depthwise implements codec.Backend.
func (r *recorder) Depthwise(y, x []float32, m, batch int, w int32) error {
	cb, n, err := r.convOp(w)
	if err != nil {
		return err
	}
	return cb.Depthwise(y, x, m, batch, n)
}

// LayerNorm implements codec.Backend.
func (r *recorder) LayerNorm(out, x []float32, m int, w, b int32, eps float32) error {
	cb, nw, err := r.convOp(w)
	if err != nil {
		return err
	}
	nb, err := r.nat(b)
	if err != nil {
		return err
	}
	return cb.LayerNorm(out, x, m, nw, nb, eps)
}

// GELU implements codec.Backend.
func (r *recorder) GELU(out, x []float32) error {
	cb, err := r.cb()
	if err != nil {
		return err
	}
	return cb.GELU(out, x)
}

// Snake implements codec.Backend.
func (r *recorder) Snake(out, x []float32, m int, h int32) error {
	cb, n, err := r.convOp(h)
	if err != nil {
		return err
	}
	return cb.Snake(out, x, m, n)
}

// Scale implements codec.Backend.
func (r *recorder) Scale(out, x []float32, m int, s int32) error {
	cb, n, err := r.convOp(s)
	if err != nil {
		return err
	}
	return cb.Scale(out, x, m, n)
}

// WindowAttention implements codec.Backend.
func (r *recorder) WindowAttention(out, qkv []float32, m int, kv, pos []int32, layer, heads, headDim int, theta float32) error {
	cb, err := r.cb()
	if err != nil {
		return err
	}
	if cap(r.caches) < len(kv) {
		r.caches = make([]int32, len(kv))
	}
	nat := r.caches[:len(kv)]
	for i, h := range kv {
		n, err := r.nat(h)
		if err != nil {
			return fmt.Errorf("host: window kv row %d: %w", i, err)
		}
		nat[i] = n
	}
	return cb.WindowAttention(out, qkv, m, nat, pos, layer, heads, headDim, theta)
}
