package safetensors

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// TensorInfo describes one tensor of a safetensors file (or of a Source).
type TensorInfo struct {
	Name   string
	DType  DType
	Shape  []int
	Offset int64 // byte offset within the data area (0 for synthetic tensors)
	Size   int64 // bytes
}

// Elems returns the number of elements of the tensor.
func (t TensorInfo) Elems() int64 {
	n, _ := ElemCount(t.Shape)
	return n
}

// File is a parsed, validated safetensors file, memory-mapped where
// the platform allows it and read with ReadAt elsewhere. Its methods may be
// called from several goroutines at once, but not concurrently with Close.
type File struct {
	path   string
	h      *header
	byName map[string]int
	r      region
}

// Open opens path and validates its header against the file size:
// every rule of the format is checked before the file is returned, so a
// later read can only fail on a dtype or shape the caller did not expect.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	size := st.Size()
	var prefix [8]byte
	if size >= 8 {
		if _, err := f.ReadAt(prefix[:], 0); err != nil {
			f.Close()
			return nil, inFile(path, fmt.Errorf("read header length: %w", err))
		}
	}
	n, err := headerLen(prefix[:], size)
	if err != nil {
		f.Close()
		return nil, inFile(path, err)
	}
	hb := make([]byte, n)
	if _, err := f.ReadAt(hb, 8); err != nil {
		f.Close()
		return nil, inFile(path, fmt.Errorf("read header: %w", err))
	}
	h, err := parseHeader(hb, size-8-n)
	if err != nil {
		f.Close()
		return nil, inFile(path, err)
	}
	h.dataOff = 8 + n
	r, err := openRegion(f, size)
	if err != nil {
		return nil, inFile(path, err)
	}
	return newSafetensors(path, h, r), nil
}

// newSafetensors wraps a validated header and the file's content.
func newSafetensors(path string, h *header, r region) *File {
	s := &File{path: path, h: h, byName: make(map[string]int, len(h.tensors)), r: r}
	for i, t := range h.tensors {
		s.byName[t.Name] = i
	}
	return s
}

// Close releases the mapping (or the file). Reads after Close fail with
// ErrClosed.
func (f *File) Close() error {
	if f.r == nil {
		return nil
	}
	err := f.r.close()
	f.r = nil
	if err != nil {
		return inFile(f.path, err)
	}
	return nil
}

// Path returns the file name the File was opened from.
func (f *File) Path() string { return f.path }

// Names returns the tensor names, sorted.
func (f *File) Names() []string {
	out := make([]string, len(f.h.tensors))
	for i, t := range f.h.tensors {
		out[i] = t.Name
	}
	return out
}

// Tensors returns every tensor's description, sorted by name.
func (f *File) Tensors() []TensorInfo {
	out := make([]TensorInfo, len(f.h.tensors))
	for i, t := range f.h.tensors {
		t.Shape = append([]int(nil), t.Shape...)
		out[i] = t
	}
	return out
}

// Info returns the description of the named tensor.
func (f *File) Info(name string) (TensorInfo, bool) {
	i, ok := f.byName[name]
	if !ok {
		return TensorInfo{}, false
	}
	t := f.h.tensors[i]
	t.Shape = append([]int(nil), t.Shape...)
	return t, true
}

// Metadata returns the header's "__metadata__" strings (nil when absent).
func (f *File) Metadata() map[string]string {
	if f.h.metadata == nil {
		return nil
	}
	out := make(map[string]string, len(f.h.metadata))
	for k, v := range f.h.metadata {
		out[k] = v
	}
	return out
}

// F32 returns the named tensor converted to float32 in a new slice, and its
// shape. F32, BF16 and F16 are accepted (each widens exactly).
func (f *File) F32(name string) ([]float32, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if err := FloatDType(t.DType); err != nil {
		return nil, nil, f.tensorErr(name, err)
	}
	dst := make([]float32, t.Elems())
	if err := f.readF32(t, 0, dst); err != nil {
		return nil, nil, err
	}
	return dst, append([]int(nil), t.Shape...), nil
}

// ReadF32 converts the named tensor into dst, whose length must equal the
// tensor's element count. F32, BF16 and F16 are accepted.
func (f *File) ReadF32(name string, dst []float32) error {
	t, err := f.lookup(name)
	if err != nil {
		return err
	}
	if err := FloatDType(t.DType); err != nil {
		return f.tensorErr(name, err)
	}
	if int64(len(dst)) != t.Elems() {
		return f.tensorErr(name, fmt.Errorf("%w: shape %v has %d elements, destination holds %d", ErrShape, t.Shape, t.Elems(), len(dst)))
	}
	return f.readF32(t, 0, dst)
}

// ReadRowsF32 converts rows row0 .. row0+n-1 of the named tensor into dst.
// A row is one index of the first dimension (for an embedding table
// [vocab, hidden], one token's vector); len(dst) must be n × row length.
func (f *File) ReadRowsF32(name string, row0, n int, dst []float32) error {
	t, err := f.lookup(name)
	if err != nil {
		return err
	}
	if err := FloatDType(t.DType); err != nil {
		return f.tensorErr(name, err)
	}
	cols, err := RowSpan(t, row0, n, len(dst))
	if err != nil {
		return f.tensorErr(name, err)
	}
	return f.readF32(t, int64(row0)*cols, dst)
}

// ReadRaw copies the named tensor's stored bytes (little-endian, in its own
// dtype) into dst, whose length must equal the tensor's size in bytes.
func (f *File) ReadRaw(name string, dst []byte) error {
	t, err := f.lookup(name)
	if err != nil {
		return err
	}
	if int64(len(dst)) != t.Size {
		return f.tensorErr(name, fmt.Errorf("%w: tensor is %d bytes, destination holds %d", ErrShape, t.Size, len(dst)))
	}
	if f.r == nil {
		return f.tensorErr(name, ErrClosed)
	}
	if err := f.r.readAt(dst, f.h.dataOff+t.Offset); err != nil {
		return f.tensorErr(name, err)
	}
	return nil
}

// Int64s returns the named integer tensor widened to int64, and its shape.
// I8, I16, I32, I64, U8, U16, U32, BOOL and U64 (values up to MaxInt64) are
// accepted.
func (f *File) Int64s(name string) ([]int64, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if t.DType.IsFloat() {
		return nil, nil, f.tensorErr(name, fmt.Errorf("%w: %s is not an integer dtype", ErrDType, t.DType))
	}
	raw := make([]byte, t.Size)
	if err := f.ReadRaw(name, raw); err != nil {
		return nil, nil, err
	}
	out := make([]int64, t.Elems())
	es := t.DType.Size()
	for i := range out {
		b := raw[i*es:]
		switch t.DType {
		case Bool, U8:
			out[i] = int64(b[0])
		case I8:
			out[i] = int64(int8(b[0]))
		case I16:
			out[i] = int64(int16(binary.LittleEndian.Uint16(b)))
		case U16:
			out[i] = int64(binary.LittleEndian.Uint16(b))
		case I32:
			out[i] = int64(int32(binary.LittleEndian.Uint32(b)))
		case U32:
			out[i] = int64(binary.LittleEndian.Uint32(b))
		case I64:
			out[i] = int64(binary.LittleEndian.Uint64(b))
		case U64:
			v := binary.LittleEndian.Uint64(b)
			if v > math.MaxInt64 {
				return nil, nil, &TensorError{File: f.path, Name: name, Index: i, Err: fmt.Errorf("%w: U64 value %d exceeds int64", ErrDType, v)}
			}
			out[i] = int64(v)
		}
	}
	return out, append([]int(nil), t.Shape...), nil
}

func (f *File) lookup(name string) (TensorInfo, error) {
	i, ok := f.byName[name]
	if !ok {
		return TensorInfo{}, f.tensorErr(name, ErrNoTensor)
	}
	return f.h.tensors[i], nil
}

func (f *File) tensorErr(name string, err error) error {
	return &TensorError{File: f.path, Name: name, Index: -1, Err: err}
}

// readChunk is the ReadAt fallback's buffer size.
const readChunk = 1 << 20

// readF32 converts len(dst) elements of t starting at element e0.
func (f *File) readF32(t TensorInfo, e0 int64, dst []float32) error {
	if f.r == nil {
		return f.tensorErr(t.Name, ErrClosed)
	}
	es := int64(t.DType.Size())
	off := f.h.dataOff + t.Offset + e0*es
	if b := f.r.bytes(); b != nil {
		decodeF32(dst, b[off:off+int64(len(dst))*es], t.DType)
		return nil
	}
	per := int(readChunk / es)
	buf := make([]byte, min(len(dst), per)*int(es))
	for done := 0; done < len(dst); {
		k := min(len(dst)-done, per)
		chunk := buf[:k*int(es)]
		if err := f.r.readAt(chunk, off+int64(done)*es); err != nil {
			return f.tensorErr(t.Name, err)
		}
		decodeF32(dst[done:done+k], chunk, t.DType)
		done += k
	}
	return nil
}

// RowSpan checks a row range of t against a destination of dstLen floats
// and returns the row length.
func RowSpan(t TensorInfo, row0, n, dstLen int) (int64, error) {
	if len(t.Shape) == 0 {
		return 0, fmt.Errorf("%w: scalar has no rows", ErrShape)
	}
	rows := int64(t.Shape[0])
	cols := int64(1)
	if rows > 0 {
		cols = t.Elems() / rows
	} else {
		c, _ := ElemCount(t.Shape[1:])
		cols = c
	}
	if row0 < 0 || n < 0 || int64(row0) > rows || int64(n) > rows-int64(row0) {
		return 0, fmt.Errorf("%w: rows [%d, %d) outside [0, %d)", ErrShape, row0, row0+n, rows)
	}
	if int64(dstLen) != int64(n)*cols {
		return 0, fmt.Errorf("%w: %d rows of %d need %d floats, destination holds %d", ErrShape, n, cols, int64(n)*cols, dstLen)
	}
	return cols, nil
}

// FloatDType accepts the dtypes that widen exactly to float32.
func FloatDType(d DType) error {
	switch d {
	case F32, BF16, F16:
		return nil
	}
	return fmt.Errorf("%w: %s does not convert exactly to float32", ErrDType, d)
}

// decodeF32 widens little-endian elements of dtype d in src into dst
// (len(src) == len(dst) × d.Size()).
func decodeF32(dst []float32, src []byte, d DType) {
	switch d {
	case F32:
		src = src[:4*len(dst)]
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case BF16:
		src = src[:2*len(dst)]
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
		}
	case F16:
		src = src[:2*len(dst)]
		for i := range dst {
			dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	default:
		panic("omni: BUG: decodeF32 of " + string(d))
	}
}
