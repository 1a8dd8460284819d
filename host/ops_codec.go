package host

import (
	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// The bodies of the codec decoder's host functions (codec.Backend). As in
// ops.go, each checks every handle (kind, owner, generation), every count
// and every (pointer, length) pair against guest memory and the shapes the
// handles imply before it calls the native backend, so a refused call has
// no effect. The codec's other operations (matrices, vectors, tables,
// matmul, rms_norm, swiglu, embed, free, bytes) are the predictor's.

// Limits of the codec's objects (the native backend's own).
const (
	maxConvCh     = 1 << 20 // conv in/out channels
	maxConvKernel = 1 << 10 // conv kernel, dilation, stride
	maxConvElems  = 1 << 30 // weights of one conv
	maxHeadDim    = 1 << 12 // window attention head width
)

// codecReady reports whether the native backend offers the codec's ops.
func (s *hostState) codecReady() abi.Status {
	if s.codec == nil {
		return abi.StatusBackend
	}
	return abi.StatusOK
}

// convPrec reads a conv precision ("fp32", "bf16" or "int8") from guest memory
// without allocating.
func convPrec(mem api.Memory, p uint32, n int32) (string, abi.Status) {
	if n < 1 || n > maxPrecLen {
		return "", abi.StatusBadLength
	}
	b, x := byteView(mem, p, n)
	if x != abi.StatusOK {
		return "", x
	}
	switch string(b) {
	case "fp32":
		return "fp32", abi.StatusOK
	case "bf16":
		return "bf16", abi.StatusOK
	case "int8":
		return "int8", abi.StatusOK
	}
	return "", abi.StatusBadArgument
}

// optBias returns the optional bias view of n values (0: none) for an
// object of want values.
func optBias(mem api.Memory, p uint32, n int32, want int64) ([]float32, abi.Status) {
	if n == 0 {
		return nil, abi.StatusOK
	}
	if int64(n) != want {
		return nil, abi.StatusBadLength
	}
	return f32View(mem, p, n)
}

// newConvLike is new_conv and new_conv_transpose: (a, b, kernel, step, w,
// w_len, bias, bias_len, prec, prec_len, out), where (a, b) is (out, in)
// for a conv and (in, out) for a transposed conv and step its dilation or
// stride.
func (s *hostState) newConvLike(mem api.Memory, st []uint64, transpose bool) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	a, b, k, step := i32(st, 0), i32(st, 1), i32(st, 2), i32(st, 3)
	if a < 1 || b < 1 || a > maxConvCh || b > maxConvCh || k < 1 || k > maxConvKernel || step < 1 || step > maxConvKernel ||
		int64(a)*int64(b)*int64(k) > maxConvElems || (transpose && k < step) {
		return abi.StatusBadArgument
	}
	outCh := int64(a)
	if transpose {
		outCh = int64(b)
	}
	n := i32(st, 5)
	if int64(n) != int64(a)*int64(b)*int64(k) {
		return abi.StatusBadLength
	}
	out := u32(st, 10)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	w, x := f32View(mem, u32(st, 4), n)
	if x != abi.StatusOK {
		return x
	}
	bias, x := optBias(mem, u32(st, 6), i32(st, 7), outCh)
	if x != abi.StatusOK {
		return x
	}
	prec, x := convPrec(mem, u32(st, 8), i32(st, 9))
	if x != abi.StatusOK {
		return x
	}
	bytes := 4 * (int64(n) + int64(len(bias)))
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	dims := [4]int{int(a), int(b), int(k), int(step)}
	if transpose {
		h, err := s.codec.NewConvTranspose(int(a), int(b), int(k), int(step), w, bias, prec)
		if err != nil {
			return abi.StatusBackend
		}
		return s.file(mem, out, h, abi.KindConvTranspose, dims, bytes)
	}
	h, err := s.codec.NewConv(int(a), int(b), int(k), int(step), w, bias, prec)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindConv, dims, bytes)
}

// newConv: (out_ch, in_ch, kernel, dilation, w, w_len, bias, bias_len, prec, prec_len, out).
func (s *hostState) newConv(mem api.Memory, st []uint64) abi.Status {
	return s.newConvLike(mem, st, false)
}

// newConvTranspose: (in_ch, out_ch, kernel, stride, w, w_len, bias, bias_len, prec, prec_len, out).
func (s *hostState) newConvTranspose(mem api.Memory, st []uint64) abi.Status {
	return s.newConvLike(mem, st, true)
}

// newDepthwise: (ch, kernel, w, w_len, bias, bias_len, out).
func (s *hostState) newDepthwise(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	ch, k := i32(st, 0), i32(st, 1)
	if !positive(ch) || k < 1 || k > maxConvKernel || int64(ch)*int64(k) > maxConvElems {
		return abi.StatusBadArgument
	}
	n := i32(st, 3)
	if int64(n) != int64(ch)*int64(k) {
		return abi.StatusBadLength
	}
	out := u32(st, 6)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	w, x := f32View(mem, u32(st, 2), n)
	if x != abi.StatusOK {
		return x
	}
	bias, x := optBias(mem, u32(st, 4), i32(st, 5), int64(ch))
	if x != abi.StatusOK {
		return x
	}
	bytes := 4 * (int64(n) + int64(len(bias)))
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.codec.NewDepthwise(int(ch), int(k), w, bias)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindDepthwise, [4]int{int(ch), int(k)}, bytes)
}

// newSnake: (ch, alpha, alpha_len, beta, beta_len, out).
func (s *hostState) newSnake(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	ch := i32(st, 0)
	if !positive(ch) {
		return abi.StatusBadArgument
	}
	if i32(st, 2) != ch || i32(st, 4) != ch {
		return abi.StatusBadLength
	}
	out := u32(st, 5)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	alpha, x := f32View(mem, u32(st, 1), ch)
	if x != abi.StatusOK {
		return x
	}
	beta, x := f32View(mem, u32(st, 3), ch)
	if x != abi.StatusOK {
		return x
	}
	bytes := 8 * int64(ch)
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.codec.NewSnake(int(ch), alpha, beta)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindSnake, [4]int{int(ch)}, bytes)
}

// windowKVBytes is the host memory of a window KV state (fp32 k and v of
// window positions per layer, and each layer's next position).
func windowKVBytes(layers, heads, headDim, window int) int64 {
	return 4*2*int64(layers)*int64(window)*int64(heads)*int64(headDim) + 4*int64(layers)
}

// newWindowKV: (layers, heads, head_dim, window, out).
func (s *hostState) newWindowKV(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	l, h, hd, win := i32(st, 0), i32(st, 1), i32(st, 2), i32(st, 3)
	if !positive(l, h, win) || hd < 2 || hd%2 != 0 || hd > maxHeadDim {
		return abi.StatusBadArgument
	}
	out := u32(st, 4)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	if 8*float64(l)*float64(h)*float64(hd)*float64(win) > float64(s.budget) {
		return abi.StatusBadArgument // also keeps windowKVBytes from overflowing
	}
	bytes := windowKVBytes(int(l), int(h), int(hd), int(win))
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	nh, err := s.codec.NewWindowKV(int(l), int(h), int(hd), int(win))
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, nh, abi.KindWindowKV, [4]int{int(l), int(h), int(hd), int(win)}, bytes)
}

// ownWindow returns a window KV state the current instance may write.
func (s *hostState) ownWindow(h int32) (*entry, abi.Status) {
	e, x := s.table.lookup(h, abi.KindWindowKV, s.current)
	if x != abi.StatusOK {
		return nil, x
	}
	if e.owner == ownerHost {
		return nil, abi.StatusReadOnly
	}
	return e, abi.StatusOK
}

// resetKV: (kv).
func (s *hostState) resetKV(_ api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	e, x := s.ownWindow(i32(st, 0))
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.ResetKV(e.native))
}

// rowsBatch checks the (m, batch) of a segmented op.
func rowsBatch(m, batch int32) abi.Status {
	if m < 1 || batch < 1 || int64(m)*int64(batch) > maxDim {
		return abi.StatusBadArgument
	}
	return abi.StatusOK
}

// yx returns the views of (y, y_len, x, x_len) at stack slots 0..3 when
// the lengths are yn and xn.
func yx(mem api.Memory, st []uint64, yn, xn int64) (y, x []float32, status abi.Status) {
	if int64(i32(st, 1)) != yn || int64(i32(st, 3)) != xn {
		return nil, nil, abi.StatusBadLength
	}
	if y, status = f32View(mem, u32(st, 0), i32(st, 1)); status != abi.StatusOK {
		return nil, nil, status
	}
	if x, status = f32View(mem, u32(st, 2), i32(st, 3)); status != abi.StatusOK {
		return nil, nil, status
	}
	return y, x, abi.StatusOK
}

// conv: (y, y_len, x, x_len, m, batch, w).
func (s *hostState) conv(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	e, x := s.table.lookup(i32(st, 6), abi.KindConv, s.current)
	if x != abi.StatusOK {
		return x
	}
	m, batch := i32(st, 4), i32(st, 5)
	if x := rowsBatch(m, batch); x != abi.StatusOK {
		return x
	}
	out, in, hist := int64(e.dims[0]), int64(e.dims[1]), int64(e.dims[2]-1)*int64(e.dims[3])
	y, xv, x := yx(mem, st, int64(batch)*int64(m)*out, int64(batch)*(hist+int64(m))*in)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.Conv(y, xv, int(m), int(batch), e.native))
}

// convTranspose: (y, y_len, x, x_len, m, batch, w, carry, carry_len).
func (s *hostState) convTranspose(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	e, x := s.table.lookup(i32(st, 6), abi.KindConvTranspose, s.current)
	if x != abi.StatusOK {
		return x
	}
	m, batch := i32(st, 4), i32(st, 5)
	if x := rowsBatch(m, batch); x != abi.StatusOK {
		return x
	}
	in, out, k, stride := int64(e.dims[0]), int64(e.dims[1]), int64(e.dims[2]), int64(e.dims[3])
	cn := i32(st, 8)
	if int64(cn) != int64(batch)*(k-stride)*out {
		return abi.StatusBadLength
	}
	y, xv, x := yx(mem, st, int64(batch)*int64(m)*stride*out, int64(batch)*int64(m)*in)
	if x != abi.StatusOK {
		return x
	}
	carry, x := f32View(mem, u32(st, 7), cn)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.ConvTranspose(y, xv, int(m), int(batch), e.native, carry))
}

// depthwise: (y, y_len, x, x_len, m, batch, w).
func (s *hostState) depthwise(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	e, x := s.table.lookup(i32(st, 6), abi.KindDepthwise, s.current)
	if x != abi.StatusOK {
		return x
	}
	m, batch := i32(st, 4), i32(st, 5)
	if x := rowsBatch(m, batch); x != abi.StatusOK {
		return x
	}
	ch, k := int64(e.dims[0]), int64(e.dims[1])
	y, xv, x := yx(mem, st, int64(batch)*int64(m)*ch, int64(batch)*(k-1+int64(m))*ch)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.Depthwise(y, xv, int(m), int(batch), e.native))
}

// layerNorm: (out, out_len, x, x_len, m, w, b, eps).
func (s *hostState) layerNorm(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	w, x := s.table.lookup(i32(st, 5), abi.KindVector, s.current)
	if x != abi.StatusOK {
		return x
	}
	b, x := s.table.lookup(i32(st, 6), abi.KindVector, s.current)
	if x != abi.StatusOK {
		return x
	}
	m, eps := i32(st, 4), f32(st, 7)
	if x := rowsBatch(m, 1); x != abi.StatusOK || !finite(eps) || eps <= 0 {
		return abi.StatusBadArgument
	}
	if w.dims[0] != b.dims[0] {
		return abi.StatusBadLength
	}
	n := int64(m) * int64(w.dims[0])
	out, xv, x := yx(mem, st, n, n)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.LayerNorm(out, xv, int(m), w.native, b.native, eps))
}

// gelu: (out, out_len, x, x_len).
func (s *hostState) gelu(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	n := i32(st, 3)
	if n < 1 {
		return abi.StatusBadLength
	}
	out, xv, x := yx(mem, st, int64(n), int64(n))
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.GELU(out, xv))
}

// rowsOf is snake and scale: (out, out_len, x, x_len, m, h) on m rows of
// the handle's dims[0] channels.
func (s *hostState) rowsOf(mem api.Memory, st []uint64, kind abi.Kind) (out, x []float32, m int, native int32, status abi.Status) {
	if status = s.codecReady(); status != abi.StatusOK {
		return
	}
	e, status := s.table.lookup(i32(st, 5), kind, s.current)
	if status != abi.StatusOK {
		return
	}
	m32 := i32(st, 4)
	if status = rowsBatch(m32, 1); status != abi.StatusOK {
		return
	}
	n := int64(m32) * int64(e.dims[0])
	if out, x, status = yx(mem, st, n, n); status != abi.StatusOK {
		return
	}
	return out, x, int(m32), e.native, abi.StatusOK
}

// snake: (out, out_len, x, x_len, m, snake).
func (s *hostState) snake(mem api.Memory, st []uint64) abi.Status {
	out, x, m, h, status := s.rowsOf(mem, st, abi.KindSnake)
	if status != abi.StatusOK {
		return status
	}
	return backendStatus(s.codec.Snake(out, x, m, h))
}

// scale: (out, out_len, x, x_len, m, s).
func (s *hostState) scale(mem api.Memory, st []uint64) abi.Status {
	out, x, m, h, status := s.rowsOf(mem, st, abi.KindVector)
	if status != abi.StatusOK {
		return status
	}
	return backendStatus(s.codec.Scale(out, x, m, h))
}

// windowAttention: (out, out_len, qkv, qkv_len, m, kv, kv_len, pos,
// pos_len, layer, heads, head_dim, theta). Every state must be the
// instance's own (the call writes k and v into it) and of the call's
// geometry; the backend refuses rows out of position order.
func (s *hostState) windowAttention(mem api.Memory, st []uint64) abi.Status {
	if x := s.codecReady(); x != abi.StatusOK {
		return x
	}
	m, layer, heads, hd, theta := i32(st, 4), i32(st, 9), i32(st, 10), i32(st, 11), f32(st, 12)
	if x := rowsBatch(m, 1); x != abi.StatusOK || layer < 0 || !positive(heads) || hd < 2 || hd%2 != 0 || hd > maxHeadDim ||
		!finite(theta) || theta <= 1 {
		return abi.StatusBadArgument
	}
	if i32(st, 6) != m || i32(st, 8) != m {
		return abi.StatusBadLength
	}
	kv, x := i32View(mem, u32(st, 5), m)
	if x != abi.StatusOK {
		return x
	}
	pos, x := i32View(mem, u32(st, 7), m)
	if x != abi.StatusOK {
		return x
	}
	if cap(s.windows) < int(m) {
		s.windows = make([]int32, m)
	}
	nat := s.windows[:m]
	for r, h := range kv {
		e, x := s.ownWindow(h)
		if x != abi.StatusOK {
			return x
		}
		if e.dims[1] != int(heads) || e.dims[2] != int(hd) || int(layer) >= e.dims[0] || pos[r] < 0 {
			return abi.StatusBadArgument
		}
		nat[r] = e.native
	}
	qw := int64(heads) * int64(hd)
	out, qkv, x := yx(mem, st, int64(m)*qw, 3*int64(m)*qw)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.codec.WindowAttention(out, qkv, int(m), nat, pos, int(layer), int(heads), int(hd), theta))
}
