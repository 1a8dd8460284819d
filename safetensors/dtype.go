package safetensors

// DType is a safetensors element type, spelled as in the file header
// ("F32", "BF16", ...).
type DType string

// The element types the reader accepts.
const (
	Bool DType = "BOOL"
	U8   DType = "U8"
	I8   DType = "I8"
	I16  DType = "I16"
	U16  DType = "U16"
	F16  DType = "F16"
	BF16 DType = "BF16"
	I32  DType = "I32"
	U32  DType = "U32"
	F32  DType = "F32"
	I64  DType = "I64"
	U64  DType = "U64"
	F64  DType = "F64"
)

// Size returns the bytes per element of d, or 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case Bool, U8, I8:
		return 1
	case I16, U16, F16, BF16:
		return 2
	case I32, U32, F32:
		return 4
	case I64, U64, F64:
		return 8
	}
	return 0
}

// Valid reports whether d is a dtype the reader knows.
func (d DType) Valid() bool { return d.Size() != 0 }

// IsFloat reports whether d is a floating-point dtype.
func (d DType) IsFloat() bool { return d == F16 || d == BF16 || d == F32 || d == F64 }
