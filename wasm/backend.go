package wasm

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/omni-tts/omni/wasm/abi"
)

// Backend implements predictor.Backend inside a WASI guest: every method is
// one call of a host function of module omni, passing handles and guest
// pointers; the host runs the native kernel on a view of this module's
// memory. Errors carry the op name and unwrap to the abi sentinel the host
// returned.
//
// While Replay runs, the methods that create objects return the handles a
// host-side load made (checking each call against the log) and every other
// method does nothing, so the guest builds its weight structures without the
// weights passing through its memory.
type Backend struct {
	replay    []abi.Created
	replaying bool
	track     bool    // remember what this backend made (FreeAll)
	made      []int32 // live handles made, when tracking
}

// NewBackend returns a guest backend.
func NewBackend() *Backend { return &Backend{} }

// NewTrackingBackend returns a guest backend that remembers every object
// it makes, so FreeAll can release them (conformance cases).
func NewTrackingBackend() *Backend { return &Backend{track: true} }

// keep records a new handle when tracking.
func (b *Backend) keep(h int32) {
	if b.track {
		b.made = append(b.made, h)
	}
}

// FreeAll frees every live object a tracking backend made.
func (b *Backend) FreeAll() {
	for _, h := range b.made {
		hostFree(h)
	}
	b.made = b.made[:0]
}

// ptr returns the guest address of a slice's first element (nil when empty).
func ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// n32 converts a Go size to an i32 argument, refusing values outside int32.
func n32(op, what string, v int) (int32, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("wasm: %s: %s %d outside int32: %w", op, what, v, abi.ErrBadArgument)
	}
	return int32(v), nil
}

// check maps a host status to an error naming op.
func check(op string, s int32) error { return abi.Check(op, abi.Status(s)) }

// Version asks the host for its ABI version.
func (b *Backend) Version() (int32, error) {
	var v int32
	if err := check(abi.OpVersion, hostVersion(unsafe.Pointer(&v))); err != nil {
		return 0, err
	}
	return v, nil
}

// NewMatrix implements predictor.Backend.
func (b *Backend) NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error) {
	r, err := n32(abi.OpNewMatrix, "rows", rows)
	if err != nil {
		return -1, err
	}
	c, err := n32(abi.OpNewMatrix, "cols", cols)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindMatrix, Dims: []int{rows, cols}, Prec: precision, Bias: bias != nil})
	}
	var h int32
	p := unsafe.Pointer(unsafe.StringData(precision))
	s := hostNewMatrix(r, c, ptr(data), int32(len(data)), ptr(bias), int32(len(bias)), p, int32(len(precision)), unsafe.Pointer(&h))
	if err := check(abi.OpNewMatrix, s); err != nil {
		return -1, fmt.Errorf("wasm: matrix %dx%d %s: %w", rows, cols, precision, err)
	}
	b.keep(h)
	return h, nil
}

// NewVector implements predictor.Backend.
func (b *Backend) NewVector(data []float32) (int32, error) {
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindVector, Dims: []int{len(data)}})
	}
	var h int32
	if err := check(abi.OpNewVector, hostNewVector(ptr(data), int32(len(data)), unsafe.Pointer(&h))); err != nil {
		return -1, fmt.Errorf("wasm: vector of %d: %w", len(data), err)
	}
	b.keep(h)
	return h, nil
}

// NewTable implements predictor.Backend.
func (b *Backend) NewTable(rows, cols int, data []float32) (int32, error) {
	r, err := n32(abi.OpNewTable, "rows", rows)
	if err != nil {
		return -1, err
	}
	c, err := n32(abi.OpNewTable, "cols", cols)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindTable, Dims: []int{rows, cols}})
	}
	var h int32
	if err := check(abi.OpNewTable, hostNewTable(r, c, ptr(data), int32(len(data)), unsafe.Pointer(&h))); err != nil {
		return -1, fmt.Errorf("wasm: table %dx%d: %w", rows, cols, err)
	}
	b.keep(h)
	return h, nil
}

// WriteTable implements predictor.Backend.
func (b *Backend) WriteTable(table int32, row0 int, data []float32) error {
	r, err := n32(abi.OpWriteTable, "row0", row0)
	if err != nil {
		return err
	}
	if b.replaying {
		return nil
	}
	return check(abi.OpWriteTable, hostWriteTable(table, r, ptr(data), int32(len(data))))
}

// NewRope implements predictor.Backend.
func (b *Backend) NewRope(headDim, maxPos int, theta float32) (int32, error) {
	d, err := n32(abi.OpNewRope, "head_dim", headDim)
	if err != nil {
		return -1, err
	}
	p, err := n32(abi.OpNewRope, "max_pos", maxPos)
	if err != nil {
		return -1, err
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindRope, Dims: []int{headDim, maxPos}, Theta: theta})
	}
	var h int32
	if err := check(abi.OpNewRope, hostNewRope(d, p, theta, unsafe.Pointer(&h))); err != nil {
		return -1, err
	}
	b.keep(h)
	return h, nil
}

// NewKVCache implements predictor.Backend.
func (b *Backend) NewKVCache(layers, kvHeads, headDim, maxPos int) (int32, error) {
	var a [4]int32
	for i, v := range [4]int{layers, kvHeads, headDim, maxPos} {
		x, err := n32(abi.OpNewKVCache, [4]string{"layers", "kv_heads", "head_dim", "max_pos"}[i], v)
		if err != nil {
			return -1, err
		}
		a[i] = x
	}
	if b.replaying {
		return b.next(abi.Created{Kind: abi.KindKVCache, Dims: []int{layers, kvHeads, headDim, maxPos}})
	}
	var h int32
	if err := check(abi.OpNewKVCache, hostNewKVCache(a[0], a[1], a[2], a[3], unsafe.Pointer(&h))); err != nil {
		return -1, fmt.Errorf("wasm: kv cache %dx%dx%dx%d: %w", layers, kvHeads, headDim, maxPos, err)
	}
	b.keep(h)
	return h, nil
}

// Free implements predictor.Backend.
func (b *Backend) Free(h int32) error {
	if b.replaying {
		return nil
	}
	if b.track {
		if i := slices.Index(b.made, h); i >= 0 {
			b.made = slices.Delete(b.made, i, i+1)
		}
	}
	return check(abi.OpFree, hostFree(h))
}

// Bytes implements predictor.Backend.
func (b *Backend) Bytes(h int32) (int64, error) {
	var n int64
	if err := check(abi.OpBytes, hostBytes(h, unsafe.Pointer(&n))); err != nil {
		return 0, err
	}
	return n, nil
}

// MatMul implements predictor.Backend.
func (b *Backend) MatMul(y, x []float32, m int, w int32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpMatMul, hostMatMul(ptr(y), int32(len(y)), ptr(x), int32(len(x)), int32(m), w))
}

// MatMulAdd implements predictor.Backend.
func (b *Backend) MatMulAdd(y, x []float32, m int, w int32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpMatMulAdd, hostMatMulAdd(ptr(y), int32(len(y)), ptr(x), int32(len(x)), int32(m), w))
}

// RMSNorm implements predictor.Backend.
func (b *Backend) RMSNorm(out, x []float32, m int, w int32, eps float32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpRMSNorm, hostRMSNorm(ptr(out), int32(len(out)), ptr(x), int32(len(x)), int32(m), w, eps))
}

// SwiGLU implements predictor.Backend.
func (b *Backend) SwiGLU(out, gu []float32, m int) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpSwiGLU, hostSwiGLU(ptr(out), int32(len(out)), ptr(gu), int32(len(gu)), int32(m)))
}

// Embed implements predictor.Backend.
func (b *Backend) Embed(out []float32, ids []int32, perRow int, table int32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpEmbed, hostEmbed(ptr(out), int32(len(out)), ptr(ids), int32(len(ids)), int32(perRow), table))
}

// Attention implements predictor.Backend.
func (b *Backend) Attention(out, qkv []float32, m int, caches, pos []int32, layer int, qNorm, kNorm, rope int32, heads int, eps float32) error {
	if b.replaying {
		return nil
	}
	return check(abi.OpAttention, hostAttention(ptr(out), int32(len(out)), ptr(qkv), int32(len(qkv)), int32(m),
		ptr(caches), int32(len(caches)), ptr(pos), int32(len(pos)), int32(layer), qNorm, kNorm, rope, int32(heads), eps))
}

// RawMatMul calls the host's matmul with raw guest offsets, bypassing every
// guest-side check: a test hook for hosts checking that a wild call comes
// back as an error status, not a trap.
func RawMatMul(y uint32, yLen int32, x uint32, xLen int32, m, w int32) error {
	return check(abi.OpMatMul, hostMatMulRaw(y, yLen, x, xLen, m, w))
}
