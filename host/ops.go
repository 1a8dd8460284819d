package host

import (
	"math"

	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// The bodies of the host functions. Each decodes its stack slots, checks
// every handle (kind, owner, generation), every count and every pointer
// range against guest memory and the shapes the handles imply, and only
// then calls the native backend on views of guest memory. Nothing is
// touched before the checks pass, so a refused call has no effect.

// arg decoders for stack slots.
func i32(stack []uint64, i int) int32   { return api.DecodeI32(stack[i]) }
func u32(stack []uint64, i int) uint32  { return api.DecodeU32(stack[i]) }
func f32(stack []uint64, i int) float32 { return api.DecodeF32(stack[i]) }

// Limits on sizes a guest may ask for (the native backend's own limits).
const (
	maxDim     = 1 << 24
	maxObjElem = 1 << 31 // elements in one uploaded object
	maxPrecLen = 32
	maxNameLen = 512
)

// positive reports whether every v is in [1, maxDim].
func positive(v ...int32) bool {
	for _, x := range v {
		if x < 1 || x > maxDim {
			return false
		}
	}
	return true
}

// finite reports whether f is neither NaN nor infinite.
func finite(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

// backendStatus maps a native backend error to a status.
func backendStatus(err error) abi.Status {
	if err != nil {
		return abi.StatusBackend
	}
	return abi.StatusOK
}

// charge reserves bytes of host memory for the current instance.
func (s *hostState) charge(bytes int64) abi.Status {
	if bytes < 0 || s.used+bytes > s.budget {
		return abi.StatusBadArgument
	}
	return abi.StatusOK
}

// file stores a native object made for the current instance and writes its
// guest handle to out (already checked writable); on failure it frees the
// native object so nothing leaks.
func (s *hostState) file(mem api.Memory, out uint32, native int32, kind abi.Kind, dims [4]int, bytes int64) abi.Status {
	h, st := s.table.add(native, kind, dims, bytes, s.current)
	if st != abi.StatusOK {
		s.native.Free(native)
		return st
	}
	s.used += bytes
	return putI32(mem, out, h)
}

// version: (out) writes abi.Version.
func (s *hostState) version(mem api.Memory, st []uint64) abi.Status {
	return putI32(mem, u32(st, 0), abi.Version)
}

// newMatrix: (rows, cols, data, data_len, bias, bias_len, prec, prec_len, out).
func (s *hostState) newMatrix(mem api.Memory, st []uint64) abi.Status {
	rows, cols := i32(st, 0), i32(st, 1)
	if !positive(rows, cols) || int64(rows)*int64(cols) > maxObjElem {
		return abi.StatusBadArgument
	}
	n, bn, pn := i32(st, 3), i32(st, 5), i32(st, 7)
	if int64(n) != int64(rows)*int64(cols) || (bn != 0 && bn != rows) || pn < 1 || pn > maxPrecLen {
		return abi.StatusBadLength
	}
	out := u32(st, 8)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	data, x := f32View(mem, u32(st, 2), n)
	if x != abi.StatusOK {
		return x
	}
	var bias []float32
	if bn > 0 {
		if bias, x = f32View(mem, u32(st, 4), bn); x != abi.StatusOK {
			return x
		}
	}
	pb, x := byteView(mem, u32(st, 6), pn)
	if x != abi.StatusOK {
		return x
	}
	var prec string
	switch string(pb) { // compared without allocating
	case "fp32":
		prec = "fp32"
	case "int8":
		prec = "int8"
	case "int8-pertensor":
		prec = "int8-pertensor"
	default:
		return abi.StatusBadArgument
	}
	bytes := int64(n) * 4
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.native.NewMatrix(int(rows), int(cols), data, bias, prec)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindMatrix, [4]int{int(rows), int(cols)}, bytes)
}

// newVector: (data, data_len, out).
func (s *hostState) newVector(mem api.Memory, st []uint64) abi.Status {
	n := i32(st, 1)
	if !positive(n) {
		return abi.StatusBadLength
	}
	out := u32(st, 2)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	data, x := f32View(mem, u32(st, 0), n)
	if x != abi.StatusOK {
		return x
	}
	if x := s.charge(int64(n) * 4); x != abi.StatusOK {
		return x
	}
	h, err := s.native.NewVector(data)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindVector, [4]int{int(n)}, int64(n)*4)
}

// newTable: (rows, cols, data, data_len, out); data_len 0 makes a zero table.
func (s *hostState) newTable(mem api.Memory, st []uint64) abi.Status {
	rows, cols := i32(st, 0), i32(st, 1)
	if !positive(rows, cols) || int64(rows)*int64(cols) > maxObjElem {
		return abi.StatusBadArgument
	}
	n := i32(st, 3)
	if n != 0 && int64(n) != int64(rows)*int64(cols) {
		return abi.StatusBadLength
	}
	out := u32(st, 4)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	data, x := f32View(mem, u32(st, 2), n)
	if x != abi.StatusOK {
		return x
	}
	bytes := int64(rows) * int64(cols) * 4
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.native.NewTable(int(rows), int(cols), data)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindTable, [4]int{int(rows), int(cols)}, bytes)
}

// writeTable: (table, row0, data, data_len); only the instance's own tables.
func (s *hostState) writeTable(mem api.Memory, st []uint64) abi.Status {
	e, x := s.table.lookup(i32(st, 0), abi.KindTable, s.current)
	if x != abi.StatusOK {
		return x
	}
	if e.owner == ownerHost {
		return abi.StatusReadOnly
	}
	rows, cols := int64(e.dims[0]), int64(e.dims[1])
	row0, n := int64(i32(st, 1)), i32(st, 3)
	if row0 < 0 || row0 >= rows {
		return abi.StatusBadArgument
	}
	if n < 1 || int64(n)%cols != 0 || row0+int64(n)/cols > rows {
		return abi.StatusBadLength
	}
	data, x := f32View(mem, u32(st, 2), n)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.native.WriteTable(e.native, int(row0), data))
}

// newRope: (head_dim, max_pos, theta, out).
func (s *hostState) newRope(mem api.Memory, st []uint64) abi.Status {
	hd, mp, theta := i32(st, 0), i32(st, 1), f32(st, 2)
	if !positive(hd, mp) || hd%2 != 0 || int64(hd)*int64(mp) > maxObjElem || !finite(theta) || theta <= 1 {
		return abi.StatusBadArgument
	}
	out := u32(st, 3)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	bytes := int64(hd) * int64(mp) * 4
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.native.NewRope(int(hd), int(mp), theta)
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindRope, [4]int{int(hd), int(mp)}, bytes)
}

// newKVCache: (layers, kv_heads, head_dim, max_pos, out).
func (s *hostState) newKVCache(mem api.Memory, st []uint64) abi.Status {
	l, kvh, hd, mp := i32(st, 0), i32(st, 1), i32(st, 2), i32(st, 3)
	if !positive(l, kvh, hd, mp) {
		return abi.StatusBadArgument
	}
	out := u32(st, 4)
	if x := checkOut(mem, out, 4); x != abi.StatusOK {
		return x
	}
	if 8*float64(l)*float64(kvh)*float64(hd)*float64(mp) > float64(s.budget) {
		return abi.StatusBadArgument // also keeps kvBytes from overflowing
	}
	bytes := kvBytes(int(l), int(kvh), int(hd), int(mp))
	if x := s.charge(bytes); x != abi.StatusOK {
		return x
	}
	h, err := s.native.NewKVCache(int(l), int(kvh), int(hd), int(mp))
	if err != nil {
		return abi.StatusBackend
	}
	return s.file(mem, out, h, abi.KindKVCache, [4]int{int(l), int(kvh), int(hd), int(mp)}, bytes)
}

// free: (handle); host-owned weights are refused.
func (s *hostState) free(_ api.Memory, st []uint64) abi.Status {
	h := i32(st, 0)
	e, x := s.table.lookup(h, abi.KindNone, s.current)
	if x != abi.StatusOK {
		return x
	}
	if e.owner == ownerHost {
		return abi.StatusReadOnly
	}
	s.used -= e.bytes
	return backendStatus(s.native.Free(s.table.remove(h)))
}

// bytes: (handle, out) writes the object's byte count as an i64.
func (s *hostState) bytes(mem api.Memory, st []uint64) abi.Status {
	e, x := s.table.lookup(i32(st, 0), abi.KindNone, s.current)
	if x != abi.StatusOK {
		return x
	}
	out := u32(st, 1)
	if x := checkOut(mem, out, 8); x != abi.StatusOK {
		return x
	}
	n, err := s.native.Bytes(e.native)
	if err != nil {
		return abi.StatusBackend
	}
	return putI64(mem, out, n)
}

// matmulArgs checks (y, y_len, x, x_len, m, w) and returns the views and
// the native matrix.
func (s *hostState) matmulArgs(mem api.Memory, st []uint64) (y, x []float32, m int, w int32, status abi.Status) {
	e, status := s.table.lookup(i32(st, 5), abi.KindMatrix, s.current)
	if status != abi.StatusOK {
		return nil, nil, 0, 0, status
	}
	mm := i32(st, 4)
	if mm < 1 || mm > maxDim {
		return nil, nil, 0, 0, abi.StatusBadArgument
	}
	yn, xn := i32(st, 1), i32(st, 3)
	if int64(yn) != int64(mm)*int64(e.dims[0]) || int64(xn) != int64(mm)*int64(e.dims[1]) {
		return nil, nil, 0, 0, abi.StatusBadLength
	}
	if y, status = f32View(mem, u32(st, 0), yn); status != abi.StatusOK {
		return nil, nil, 0, 0, status
	}
	if x, status = f32View(mem, u32(st, 2), xn); status != abi.StatusOK {
		return nil, nil, 0, 0, status
	}
	return y, x, int(mm), e.native, abi.StatusOK
}

// matmul: (y, y_len, x, x_len, m, w).
func (s *hostState) matmul(mem api.Memory, st []uint64) abi.Status {
	y, x, m, w, status := s.matmulArgs(mem, st)
	if status != abi.StatusOK {
		return status
	}
	return backendStatus(s.native.MatMul(y, x, m, w))
}

// matmulAdd: (y, y_len, x, x_len, m, w).
func (s *hostState) matmulAdd(mem api.Memory, st []uint64) abi.Status {
	y, x, m, w, status := s.matmulArgs(mem, st)
	if status != abi.StatusOK {
		return status
	}
	return backendStatus(s.native.MatMulAdd(y, x, m, w))
}

// rmsNorm: (out, out_len, x, x_len, m, w, eps).
func (s *hostState) rmsNorm(mem api.Memory, st []uint64) abi.Status {
	e, x := s.table.lookup(i32(st, 5), abi.KindVector, s.current)
	if x != abi.StatusOK {
		return x
	}
	m, eps := i32(st, 4), f32(st, 6)
	if m < 1 || m > maxDim || !finite(eps) || eps <= 0 {
		return abi.StatusBadArgument
	}
	on, xn := i32(st, 1), i32(st, 3)
	if want := int64(m) * int64(e.dims[0]); int64(on) != want || int64(xn) != want {
		return abi.StatusBadLength
	}
	out, x := f32View(mem, u32(st, 0), on)
	if x != abi.StatusOK {
		return x
	}
	in, x := f32View(mem, u32(st, 2), xn)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.native.RMSNorm(out, in, int(m), e.native, eps))
}

// swiglu: (out, out_len, gu, gu_len, m).
func (s *hostState) swiglu(mem api.Memory, st []uint64) abi.Status {
	m := i32(st, 4)
	if m < 1 || m > maxDim {
		return abi.StatusBadArgument
	}
	on, gn := i32(st, 1), i32(st, 3)
	if on < 1 || int64(on)%int64(m) != 0 || int64(gn) != 2*int64(on) {
		return abi.StatusBadLength
	}
	out, x := f32View(mem, u32(st, 0), on)
	if x != abi.StatusOK {
		return x
	}
	gu, x := f32View(mem, u32(st, 2), gn)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.native.SwiGLU(out, gu, int(m)))
}

// embed: (out, out_len, ids, ids_len, per_row, table); every id must be a
// row of the table.
func (s *hostState) embed(mem api.Memory, st []uint64) abi.Status {
	e, x := s.table.lookup(i32(st, 5), abi.KindTable, s.current)
	if x != abi.StatusOK {
		return x
	}
	per, in, on := i32(st, 4), i32(st, 3), i32(st, 1)
	if per < 1 || per > maxDim {
		return abi.StatusBadArgument
	}
	if in < 1 || in%per != 0 || int64(on) != int64(in/per)*int64(e.dims[1]) {
		return abi.StatusBadLength
	}
	ids, x := i32View(mem, u32(st, 2), in)
	if x != abi.StatusOK {
		return x
	}
	out, x := f32View(mem, u32(st, 0), on)
	if x != abi.StatusOK {
		return x
	}
	rows := int32(e.dims[0])
	for _, id := range ids {
		if id < 0 || id >= rows {
			return abi.StatusBadArgument
		}
	}
	return backendStatus(s.native.Embed(out, ids, int(per), e.native))
}

// attention: (out, out_len, qkv, qkv_len, m, caches, caches_len, pos,
// pos_len, layer, q_norm, k_norm, rope, heads, eps).
func (s *hostState) attention(mem api.Memory, st []uint64) abi.Status {
	rope, x := s.table.lookup(i32(st, 12), abi.KindRope, s.current)
	if x != abi.StatusOK {
		return x
	}
	hd, ropeMax := rope.dims[0], rope.dims[1]
	qn, x := s.table.lookup(i32(st, 10), abi.KindVector, s.current)
	if x != abi.StatusOK {
		return x
	}
	kn, x := s.table.lookup(i32(st, 11), abi.KindVector, s.current)
	if x != abi.StatusOK {
		return x
	}
	if qn.dims[0] != hd || kn.dims[0] != hd {
		return abi.StatusBadLength
	}
	m, layer, heads, eps := i32(st, 4), i32(st, 9), i32(st, 13), f32(st, 14)
	if m < 1 || m > maxDim || layer < 0 || heads < 1 || heads > maxDim || !finite(eps) || eps <= 0 {
		return abi.StatusBadArgument
	}
	if i32(st, 6) != m || i32(st, 8) != m {
		return abi.StatusBadLength
	}
	caches, x := i32View(mem, u32(st, 5), m)
	if x != abi.StatusOK {
		return x
	}
	pos, x := i32View(mem, u32(st, 7), m)
	if x != abi.StatusOK {
		return x
	}
	if cap(s.caches) < int(m) {
		s.caches = make([]int32, m)
	}
	nat := s.caches[:m]
	kvh := 0
	for r, h := range caches {
		c, x := s.table.lookup(h, abi.KindKVCache, s.current)
		if x != abi.StatusOK {
			return x
		}
		if c.owner == ownerHost {
			return abi.StatusReadOnly // attention writes k and v into the cache
		}
		if r == 0 {
			kvh = c.dims[1]
		}
		if c.dims[1] != kvh || c.dims[2] != hd || int(layer) >= c.dims[0] {
			return abi.StatusBadArgument
		}
		if p := pos[r]; p < 0 || int(p) >= c.dims[3] || int(p) >= ropeMax {
			return abi.StatusBadArgument
		}
		nat[r] = c.native
	}
	if int(heads)%kvh != 0 {
		return abi.StatusBadArgument
	}
	on, qkvn := i32(st, 1), i32(st, 3)
	if int64(on) != int64(m)*int64(heads)*int64(hd) || int64(qkvn) != int64(m)*(int64(heads)+2*int64(kvh))*int64(hd) {
		return abi.StatusBadLength
	}
	out, x := f32View(mem, u32(st, 0), on)
	if x != abi.StatusOK {
		return x
	}
	qkv, x := f32View(mem, u32(st, 2), qkvn)
	if x != abi.StatusOK {
		return x
	}
	return backendStatus(s.native.Attention(out, qkv, int(m), nat, pos, int(layer), qn.native, kn.native, rope.native, int(heads), eps))
}

// sourceRead: (name, name_len, row0, rows, out, out_len) converts rows of a
// checkpoint tensor into guest memory (the talker's text-embedding rows).
func (s *hostState) sourceRead(mem api.Memory, st []uint64) abi.Status {
	if s.src == nil {
		return abi.StatusSource
	}
	nn, row0, rows, on := i32(st, 1), i32(st, 2), i32(st, 3), i32(st, 5)
	if nn < 1 || nn > maxNameLen || row0 < 0 || rows < 1 {
		return abi.StatusBadArgument
	}
	nb, x := byteView(mem, u32(st, 0), nn)
	if x != abi.StatusOK {
		return x
	}
	if on < 1 {
		return abi.StatusBadLength
	}
	out, x := f32View(mem, u32(st, 4), on)
	if x != abi.StatusOK {
		return x
	}
	name, ok := s.names[string(nb)]
	if !ok {
		if len(s.names) >= 256 {
			clear(s.names)
		}
		name = string(nb)
		s.names[name] = name
	}
	if err := s.src.ReadRowsF32(name, int(row0), int(rows), out); err != nil {
		return abi.StatusSource
	}
	return abi.StatusOK
}
