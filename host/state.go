package host

import (
	"fmt"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/wasm/abi"
)

// hostState is what the host functions of one engine work on: the native
// backend, the handle table shared by the host's weights and the current
// guest instance, and per-call scratch. One goroutine (the one calling into
// the guest) uses it at a time.
type hostState struct {
	native  predictor.Backend
	codec   codec.Backend // native's codec operations; nil when it has none (the codec ops refuse)
	table   *handleTable
	src     predictor.Source // for source_read; nil refuses the op
	current owner            // instance whose calls are running
	nextID  owner

	// budget is the bytes of objects the current instance may hold: the
	// ceiling until its engine is built, then what the engine built plus
	// the engine's own KV budget (wasiEngine.instance), so the host
	// enforces the one budget the engine admits against.
	budget  int64
	ceiling int64 // budget of an instance whose engine has no KV budget
	used    int64 // bytes the current instance holds

	calls    uint64            // host calls since the state was made
	hostTime time.Duration     // time spent inside host functions
	names    map[string]string // interned tensor names for source_read
	caches   []int32           // native cache handles of one attention call
	windows  []int32           // native window kv handles of one window_attention call
	lastFail string            // last host function panic, for diagnostics
}

// newHostState returns the state for one engine.
func newHostState(native predictor.Backend, src predictor.Source, budget int64) *hostState {
	cb, _ := native.(codec.Backend)
	return &hostState{codec: cb,
		native: native, table: newHandleTable(), src: src,
		budget: budget, ceiling: budget, names: map[string]string{},
	}
}

// beginInstance makes a new instance owner current.
func (s *hostState) beginInstance() owner {
	s.nextID++
	s.current = s.nextID
	s.used = 0
	s.budget = s.ceiling
	return s.current
}

// endInstance frees every object instance o made (its KV caches, any
// weights it uploaded itself); the host's weights stay.
func (s *hostState) endInstance(o owner) {
	s.table.release(o, func(native int32) { s.native.Free(native) })
	if s.current == o {
		s.used = 0
	}
}

// recorder is the predictor.Backend the host loads weights through: it
// calls the native backend, files each new object in the handle table as
// host-owned and logs it for the guest's replay. The handles it returns are
// guest handles; every op translates them, so a model can also run
// natively on them.
type recorder struct {
	s      *hostState
	log    []abi.Created
	caches []int32          // native cache handles of one Attention call
	guards predictor.Guards // the load's guarded channels, for the guest's replay
}

// add files a native object made by the host.
func (r *recorder) add(native int32, err error, c abi.Created, bytes int64) (int32, error) {
	if err != nil {
		return -1, err
	}
	var dims [4]int
	copy(dims[:], c.Dims)
	h, st := r.s.table.add(native, c.Kind, dims, bytes, ownerHost)
	if st != abi.StatusOK {
		r.s.native.Free(native)
		return -1, fmt.Errorf("host: %v %v: %w", c.Kind, c.Dims, st.Err())
	}
	c.Handle = h
	r.log = append(r.log, c)
	return h, nil
}

// nat translates a host-made guest handle for the native backend.
func (r *recorder) nat(h int32) (int32, error) {
	e, st := r.s.table.lookup(h, abi.KindNone, ownerHost)
	if st != abi.StatusOK {
		return -1, fmt.Errorf("host: handle %#x: %w", h, st.Err())
	}
	return e.native, nil
}

// NewMatrix implements predictor.Backend.
func (r *recorder) NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error) {
	h, err := r.s.native.NewMatrix(rows, cols, data, bias, precision)
	return r.add(h, err, abi.Created{Kind: abi.KindMatrix, Dims: []int{rows, cols}, Prec: precision, Bias: bias != nil}, int64(rows)*int64(cols)*4)
}

// NewVector implements predictor.Backend.
func (r *recorder) NewVector(data []float32) (int32, error) {
	h, err := r.s.native.NewVector(data)
	return r.add(h, err, abi.Created{Kind: abi.KindVector, Dims: []int{len(data)}}, int64(len(data))*4)
}

// NewTable implements predictor.Backend.
func (r *recorder) NewTable(rows, cols int, data []float32) (int32, error) {
	h, err := r.s.native.NewTable(rows, cols, data)
	return r.add(h, err, abi.Created{Kind: abi.KindTable, Dims: []int{rows, cols}}, int64(rows)*int64(cols)*4)
}

// WriteTable implements predictor.Backend.
func (r *recorder) WriteTable(table int32, row0 int, data []float32) error {
	n, err := r.nat(table)
	if err != nil {
		return err
	}
	return r.s.native.WriteTable(n, row0, data)
}

// NewRope implements predictor.Backend.
func (r *recorder) NewRope(headDim, maxPos int, theta float32) (int32, error) {
	h, err := r.s.native.NewRope(headDim, maxPos, theta)
	return r.add(h, err, abi.Created{Kind: abi.KindRope, Dims: []int{headDim, maxPos}, Theta: theta}, int64(headDim)*int64(maxPos)*4)
}

// NewKVCache implements predictor.Backend.
func (r *recorder) NewKVCache(layers, kvHeads, headDim, maxPos int) (int32, error) {
	h, err := r.s.native.NewKVCache(layers, kvHeads, headDim, maxPos)
	return r.add(h, err, abi.Created{Kind: abi.KindKVCache, Dims: []int{layers, kvHeads, headDim, maxPos}}, kvBytes(layers, kvHeads, headDim, maxPos))
}

// Free implements predictor.Backend.
func (r *recorder) Free(h int32) error {
	n, err := r.nat(h)
	if err != nil {
		return err
	}
	r.s.table.remove(h)
	return r.s.native.Free(n)
}

// Bytes implements predictor.Backend.
func (r *recorder) Bytes(h int32) (int64, error) {
	n, err := r.nat(h)
	if err != nil {
		return 0, err
	}
	return r.s.native.Bytes(n)
}

// MatMul implements predictor.Backend (the loader projects tables with it).
func (r *recorder) MatMul(y, x []float32, m int, w int32) error {
	n, err := r.nat(w)
	if err != nil {
		return err
	}
	return r.s.native.MatMul(y, x, m, n)
}

// MatMulAdd implements predictor.Backend.
func (r *recorder) MatMulAdd(y, x []float32, m int, w int32) error {
	n, err := r.nat(w)
	if err != nil {
		return err
	}
	return r.s.native.MatMulAdd(y, x, m, n)
}

// RMSNorm implements predictor.Backend.
func (r *recorder) RMSNorm(out, x []float32, m int, w int32, eps float32) error {
	n, err := r.nat(w)
	if err != nil {
		return err
	}
	return r.s.native.RMSNorm(out, x, m, n, eps)
}

// SwiGLU implements predictor.Backend.
func (r *recorder) SwiGLU(out, gu []float32, m int) error { return r.s.native.SwiGLU(out, gu, m) }

// Embed implements predictor.Backend.
func (r *recorder) Embed(out []float32, ids []int32, perRow int, table int32) error {
	n, err := r.nat(table)
	if err != nil {
		return err
	}
	return r.s.native.Embed(out, ids, perRow, n)
}

// Attention implements predictor.Backend (the loader never calls it; a
// model run natively on host-made handles does).
func (r *recorder) Attention(out, qkv []float32, m int, caches, pos []int32, layer int, qNorm, kNorm, rope int32, heads int, eps float32) error {
	if cap(r.caches) < len(caches) {
		r.caches = make([]int32, len(caches))
	}
	nat := r.caches[:len(caches)]
	for i, h := range caches {
		n, err := r.nat(h)
		if err != nil {
			return err
		}
		nat[i] = n
	}
	q, err := r.nat(qNorm)
	if err != nil {
		return err
	}
	k, err := r.nat(kNorm)
	if err != nil {
		return err
	}
	rp, err := r.nat(rope)
	if err != nil {
		return err
	}
	return r.s.native.Attention(out, qkv, m, nat, pos, layer, q, k, rp, heads, eps)
}

// kvBytes is the host memory of a KV cache (fp32 k and v).
func kvBytes(layers, kvHeads, headDim, maxPos int) int64 {
	return 2 * 4 * int64(layers) * int64(kvHeads) * int64(headDim) * int64(maxPos)
}
