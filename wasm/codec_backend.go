package wasm

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/wasm/abi"
)

// Backend implements codec.Backend beside predictor.Backend: the codec's
// own operations are the host functions of this file (one call each,
// handles and guest pointers, the native kernels on the host's side), and
// the operations both interfaces share (NewMatrix, NewVector, NewTable,
// Free, Bytes, MatMul, RMSNorm, SwiGLU, Embed) are the predictor's, with
// the same meaning. During a Replay the creating calls answer from the
// host's log and the others do nothing, as for the predictor's.
var _ codec.Backend = (*Backend)(nil)

// sizes32 converts the Go sizes of a call to i32 arguments, refusing any
// outside int32 (names gives each one's parameter name).
func sizes32(op string, names *[4]string, v ...int) ([4]int32, error) {
	var a [4]int32
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return a, fmt.Errorf("wasm: %s: %s %d outside int32: %w", op, names[i], x, abi.ErrBadArgument)
		}
		a[i] = int32(x)
	}
	return a, nil
}

// rows32 converts the m and batch of an operation.
func rows32(op string, m, batch int) (int32, int32, error) {
	if m != int(int32(m)) || batch != int(int32(batch)) {
		return 0, 0, fmt.Errorf("wasm: %s: %d rows × %d segments outside int32: %w", op, m, batch, abi.ErrBadArgument)
	}
	return int32(m), int32(batch), nil
}

// created finishes a creating call: the status as an error naming what, or
// the new handle (kept when tracking).
func (b *Backend) created(op, what string, s int32, h int32) (int32, error) {
	if err := check(op, s); err != nil {
		return -1, fmt.Errorf("wasm: %s: %w", what, err)
	}
	b.keep(h)
	return h, nil
}

// NewConv implements codec.Backend.
func (b *Backend) NewConv(out, in, kernel, dilation int, w, bias []float32, precision string) (int32, error) {
	a, err := sizes32(abi.OpNewConv, &[4]string{"out_ch", "in_ch", "kernel", "dilation"}, out, in, kernel, dilation)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindConv, Dims: []int{out, in, kernel, dilation}, Prec: precision, Bias: bias != nil})
	}
	var h int32
	s := hostNewConv(a[0], a[1], a[2], a[3], ptr(w), int32(len(w)), ptr(bias), int32(len(bias)),
		unsafe.Pointer(unsafe.StringData(precision)), int32(len(precision)), unsafe.Pointer(&h))
	return b.created(abi.OpNewConv, fmt.Sprintf("conv %d×%d×%d dilation %d %s", out, in, kernel, dilation, precision), s, h)
}

// NewConvTranspose implements codec.Backend.
func (b *Backend) NewConvTranspose(in, out, kernel, stride int, w, bias []float32, precision string) (int32, error) {
	a, err := sizes32(abi.OpNewConvTranspose, &[4]string{"in_ch", "out_ch", "kernel", "stride"}, in, out, kernel, stride)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindConvTranspose, Dims: []int{in, out, kernel, stride}, Prec: precision, Bias: bias != nil})
	}
	var h int32
	s := hostNewConvTranspose(a[0], a[1], a[2], a[3], ptr(w), int32(len(w)), ptr(bias), int32(len(bias)),
		unsafe.Pointer(unsafe.StringData(precision)), int32(len(precision)), unsafe.Pointer(&h))
	return b.created(abi.OpNewConvTranspose, fmt.Sprintf("transposed conv %d×%d×%d stride %d %s", in, out, kernel, stride, precision), s, h)
}

// NewDepthwise implements codec.Backend.
func (b *Backend) NewDepthwise(ch, kernel int, w, bias []float32) (int32, error) {
	a, err := sizes32(abi.OpNewDepthwise, &[4]string{"ch", "kernel"}, ch, kernel)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindDepthwise, Dims: []int{ch, kernel}, Bias: bias != nil})
	}
	var h int32
	s := hostNewDepthwise(a[0], a[1], ptr(w), int32(len(w)), ptr(bias), int32(len(bias)), unsafe.Pointer(&h))
	return b.created(abi.OpNewDepthwise, fmt.Sprintf("depthwise conv %d×%d", ch, kernel), s, h)
}

// NewSnake implements codec.Backend.
func (b *Backend) NewSnake(ch int, alpha, beta []float32) (int32, error) {
	a, err := sizes32(abi.OpNewSnake, &[4]string{"ch"}, ch)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindSnake, Dims: []int{ch}})
	}
	var h int32
	s := hostNewSnake(a[0], ptr(alpha), int32(len(alpha)), ptr(beta), int32(len(beta)), unsafe.Pointer(&h))
	return b.created(abi.OpNewSnake, fmt.Sprintf("snake of %d channels", ch), s, h)
}

// NewWindowKV implements codec.Backend.
func (b *Backend) NewWindowKV(layers, heads, headDim, window int) (int32, error) {
	a, err := sizes32(abi.OpNewWindowKV, &[4]string{"layers", "heads", "head_dim", "window"}, layers, heads, headDim, window)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindWindowKV, Dims: []int{layers, heads, headDim, window}})
	}
	var h int32
	s := hostNewWindowKV(a[0], a[1], a[2], a[3], unsafe.Pointer(&h))
	return b.created(abi.OpNewWindowKV, fmt.Sprintf("window kv %d layers × %d heads × %d × %d", layers, heads, headDim, window), s, h)
}

// ResetKV implements codec.Backend.
func (b *Backend) ResetKV(h int32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpResetKV, hostResetKV(h))
}

// Conv implements codec.Backend.
func (b *Backend) Conv(y, x []float32, m, batch int, w int32) error {
	if b.replaying {
		return nil
	}
	m32, b32, err := rows32(abi.OpConv, m, batch)
	if err != nil {
		return err
	}
	return check(abi.OpConv, hostConv(ptr(y), int32(len(y)), ptr(x), int32(len(x)), m32, b32, w))
}

// ConvTranspose implements codec.Backend.
func (b *Backend) ConvTranspose(y, x []float32, m, batch int, w int32, carry []float32) error {
	if b.replaying {
		return nil
	}
	m32, b32, err := rows32(abi.OpConvTranspose, m, batch)
	if err != nil {
		return err
	}
	return check(abi.OpConvTranspose, hostConvTranspose(ptr(y), int32(len(y)), ptr(x), int32(len(x)), m32, b32, w, ptr(carry), int32(len(carry))))
}

// Depthwise implements codec.Backend.
func (b *Backend) Depthwise(y, x []float32, m, batch int, w int32) error {
	if b.replaying {
		return nil
	}
	m32, b32, err := rows32(abi.OpDepthwise, m, batch)
	if err != nil {
		return err
	}
	return check(abi.OpDepthwise, hostDepthwise(ptr(y), int32(len(y)), ptr(x), int32(len(x)), m32, b32, w))
}

// LayerNorm implements codec.Backend.
func (b *Backend) LayerNorm(out, x []float32, m int, w, bias int32, eps float32) error {
	if b.replaying {
		return nil
	}
	m32, _, err := rows32(abi.OpLayerNorm, m, 1)
	if err != nil {
		return err
	}
	return check(abi.OpLayerNorm, hostLayerNorm(ptr(out), int32(len(out)), ptr(x), int32(len(x)), m32, w, bias, eps))
}

// GELU implements codec.Backend.
func (b *Backend) GELU(out, x []float32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpGELU, hostGELU(ptr(out), int32(len(out)), ptr(x), int32(len(x))))
}

// Snake implements codec.Backend.
func (b *Backend) Snake(out, x []float32, m int, h int32) error {
	if b.replaying {
		return nil
	}
	m32, _, err := rows32(abi.OpSnake, m, 1)
	if err != nil {
		return err
	}
	return check(abi.OpSnake, hostSnake(ptr(out), int32(len(out)), ptr(x), int32(len(x)), m32, h))
}

// Scale implements codec.Backend.
func (b *Backend) Scale(out, x []float32, m int, s int32) error {
	if b.replaying {
		return nil
	}
	m32, _, err := rows32(abi.OpScale, m, 1)
	if err != nil {
		return err
	}
	return check(abi.OpScale, hostScale(ptr(out), int32(len(out)), ptr(x), int32(len(x)), m32, s))
}

// WindowAttention implements codec.Backend.
func (b *Backend) WindowAttention(out, qkv []float32, m int, kv, pos []int32, layer, heads, headDim int, theta float32) error {
	if b.replaying {
		return nil
	}
	a, err := sizes32(abi.OpWindowAttention, &[4]string{"m", "layer", "heads", "head_dim"}, m, layer, heads, headDim)
	if err != nil {
		return err
	}
	return check(abi.OpWindowAttention, hostWindowAttention(ptr(out), int32(len(out)), ptr(qkv), int32(len(qkv)), a[0],
		ptr(kv), int32(len(kv)), ptr(pos), int32(len(pos)), a[1], a[2], a[3], theta))
}

// ReplayCodec builds the codec decoder the host loaded (l) by replaying
// its log: codec.Replay makes the load's calls, this backend answers each
// from l.Created and checks it asks for the object the host made. The
// model runs on the host's weights; only its streams' window KV states are
// the guest's.
func (b *Backend) ReplayCodec(l *abi.CodecLoad) (*codec.Model, error) {
	if l == nil {
		return nil, fmt.Errorf("wasm: codec replay without a load")
	}
	cfg, err := codec.ParseConfig(l.Config)
	if err != nil {
		return nil, fmt.Errorf("wasm: codec replay: %w", err)
	}
	var m *codec.Model
	err = b.Replay(l.Created, func() error {
		var err error
		m, err = codec.Replay(cfg, b, l.Precision)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("wasm: codec replay: %w", err)
	}
	return m, nil
}
