package predictor

import "github.com/omni-tts/omni/safetensors"

// The safetensors reader and writer live in package safetensors; these names
// keep predictor's API (and its callers) as they were.
type (
	// TensorInfo describes one tensor of a safetensors file (or of a Source).
	TensorInfo = safetensors.TensorInfo
	// Safetensors is an open safetensors file.
	Safetensors = safetensors.Safetensors
	// DType is a safetensors element type ("F32", "BF16", ...).
	DType = safetensors.DType
	// WriteTensor is one tensor for WriteSafetensors.
	WriteTensor = safetensors.WriteTensor
)

// The element types the reader accepts.
const (
	Bool = safetensors.Bool
	U8   = safetensors.U8
	I8   = safetensors.I8
	I16  = safetensors.I16
	U16  = safetensors.U16
	F16  = safetensors.F16
	BF16 = safetensors.BF16
	I32  = safetensors.I32
	U32  = safetensors.U32
	F32  = safetensors.F32
	I64  = safetensors.I64
	U64  = safetensors.U64
	F64  = safetensors.F64
)

// OpenSafetensors opens a safetensors file (see safetensors.OpenSafetensors).
func OpenSafetensors(path string) (*Safetensors, error) { return safetensors.OpenSafetensors(path) }

// WriteSafetensors writes tensors to path (see safetensors.WriteSafetensors).
func WriteSafetensors(path string, tensors []WriteTensor, metadata map[string]string) error {
	return safetensors.WriteSafetensors(path, tensors, metadata)
}

// BF16FromF32 rounds f to bfloat16 (see safetensors.BF16FromF32).
func BF16FromF32(f float32) uint16 { return safetensors.BF16FromF32(f) }

// BF16ToF32 widens a bfloat16 (see safetensors.BF16ToF32).
func BF16ToF32(h uint16) float32 { return safetensors.BF16ToF32(h) }

// EncodeBF16 encodes v as little-endian bfloat16 (see safetensors.EncodeBF16).
func EncodeBF16(v []float32) []byte { return safetensors.EncodeBF16(v) }

// EncodeF32 encodes v as little-endian float32 (see safetensors.EncodeF32).
func EncodeF32(v []float32) []byte { return safetensors.EncodeF32(v) }

// EncodeI64 encodes v as little-endian int64 (see safetensors.EncodeI64).
func EncodeI64(v []int64) []byte { return safetensors.EncodeI64(v) }

// EncodeI32 encodes v as little-endian int32 (see safetensors.EncodeI32).
func EncodeI32(v []int32) []byte { return safetensors.EncodeI32(v) }

func elemCount(shape []int) (int64, bool) { return safetensors.ElemCount(shape) }
func floatDType(d DType) error            { return safetensors.FloatDType(d) }
func rowSpan(t TensorInfo, row0, n, dstLen int) (int64, error) {
	return safetensors.RowSpan(t, row0, n, dstLen)
}
