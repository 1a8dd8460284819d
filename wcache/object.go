package wcache

import (
	"fmt"
	"unsafe"
)

// Blob types: the element type of a blob's bytes (little-endian).
const (
	U8  = "u8"
	U16 = "u16"
	F32 = "f32"
)

// elemSize returns the size of one element of a blob type (0: unknown).
func elemSize(typ string) int {
	switch typ {
	case U8:
		return 1
	case U16:
		return 2
	case F32:
		return 4
	}
	return 0
}

// Blob is one named, typed run of bytes of an object, at Off (a multiple
// of Align) in the file, Len bytes long, with its CRC-32C.
type Blob struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Off  int64  `json:"off"`
	Len  int64  `json:"len"`
	CRC  uint32 `json:"crc"`
}

// Object is one prepared object: a kind, named integers and strings, and
// named typed blobs. A prepared type writes itself with the Put methods
// (the blobs are not copied: their memory must stay unchanged until
// Writer.Add returns) and reads itself back with the getters, which return
// views of the file's memory (read-only when the file is mapped).
type Object struct {
	Kind  string            `json:"kind"`
	Ints  map[string]int64  `json:"ints,omitempty"`
	Strs  map[string]string `json:"strs,omitempty"`
	Blobs []Blob            `json:"blobs,omitempty"`

	data [][]byte // blob i's bytes: pending (writer) or a view (reader)
}

// NewObject returns an empty object of kind.
func NewObject(kind string) *Object { return &Object{Kind: kind} }

// PutInt records a named integer.
func (o *Object) PutInt(name string, v int) {
	if o.Ints == nil {
		o.Ints = map[string]int64{}
	}
	o.Ints[name] = int64(v)
}

// PutStr records a named string.
func (o *Object) PutStr(name, v string) {
	if o.Strs == nil {
		o.Strs = map[string]string{}
	}
	o.Strs[name] = v
}

// PutBytes records a named blob of bytes.
func (o *Object) PutBytes(name string, b []byte) { o.put(name, U8, b) }

// PutU16 records a named blob of uint16 values.
func (o *Object) PutU16(name string, v []uint16) {
	o.put(name, U16, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 2*len(v)))
}

// PutF32 records a named blob of float32 values.
func (o *Object) PutF32(name string, v []float32) {
	o.put(name, F32, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v)))
}

func (o *Object) put(name, typ string, b []byte) {
	o.Blobs = append(o.Blobs, Blob{Name: name, Type: typ, Len: int64(len(b))})
	o.data = append(o.data, b)
}

// Int returns a named integer.
func (o *Object) Int(name string) (int, error) {
	v, ok := o.Ints[name]
	if !ok {
		return 0, errorf(ErrMissing, "%s object has no integer %q", o.Kind, name)
	}
	if int64(int(v)) != v {
		return 0, errorf(ErrDamaged, "%s object: integer %s = %d overflows int", o.Kind, name, v)
	}
	return int(v), nil
}

// Str returns a named string.
func (o *Object) Str(name string) (string, error) {
	v, ok := o.Strs[name]
	if !ok {
		return "", errorf(ErrMissing, "%s object has no string %q", o.Kind, name)
	}
	return v, nil
}

// Has reports whether the object has a blob named name.
func (o *Object) Has(name string) bool { return o.blob(name) >= 0 }

func (o *Object) blob(name string) int {
	for i := range o.Blobs {
		if o.Blobs[i].Name == name {
			return i
		}
	}
	return -1
}

// view returns the bytes of a named blob of type typ.
func (o *Object) view(name, typ string) ([]byte, error) {
	i := o.blob(name)
	if i < 0 || i >= len(o.data) {
		return nil, errorf(ErrMissing, "%s object has no blob %q", o.Kind, name)
	}
	if o.Blobs[i].Type != typ {
		return nil, errorf(ErrDamaged, "%s object: blob %s is %s, want %s", o.Kind, name, o.Blobs[i].Type, typ)
	}
	return o.data[i], nil
}

// Bytes returns a named byte blob.
func (o *Object) Bytes(name string) ([]byte, error) { return o.view(name, U8) }

// U16s returns a named uint16 blob.
func (o *Object) U16s(name string) ([]uint16, error) {
	b, err := o.view(name, U16)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2), nil
}

// F32s returns a named float32 blob.
func (o *Object) F32s(name string) ([]float32, error) {
	b, err := o.view(name, F32)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4), nil
}

// String describes the object for error messages.
func (o *Object) String() string {
	return fmt.Sprintf("%s %v", o.Kind, o.Ints)
}
