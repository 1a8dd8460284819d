package host

import (
	"unsafe"

	"github.com/tetratelabs/wazero/api"

	"github.com/omni-tts/omni/wasm/abi"
)

// Guest memory is reached only through the helpers in this file. Each turns
// a guest (offset, element count) pair into a typed view of the module's
// linear memory after checking that the count is not negative, the offset
// is aligned for the element type, and the whole range lies inside memory.
// Views alias guest memory (no copy); the runtime reserves the memory cap up
// front, so a view stays valid for the rest of the host call even if the
// guest later grows its memory.

// maxElems bounds one view: 2³⁰ four-byte elements fill a 32-bit memory.
const maxElems = 1 << 30

// span checks (ptr, n elements of size bytes, aligned to align) and returns
// the byte view.
func span(mem api.Memory, ptr uint32, n int32, size, align uint32) ([]byte, abi.Status) {
	if n < 0 || n > maxElems {
		return nil, abi.StatusBadLength
	}
	if ptr%align != 0 {
		return nil, abi.StatusBadPointer
	}
	nb := uint64(n) * uint64(size)
	if uint64(ptr)+nb > uint64(mem.Size()) {
		return nil, abi.StatusBadPointer
	}
	if n == 0 {
		return nil, abi.StatusOK
	}
	b, ok := mem.Read(ptr, uint32(nb))
	if !ok || uint64(len(b)) != nb {
		return nil, abi.StatusBadPointer
	}
	return b, abi.StatusOK
}

// f32View returns n float32 values at guest offset ptr.
func f32View(mem api.Memory, ptr uint32, n int32) ([]float32, abi.Status) {
	b, s := span(mem, ptr, n, 4, 4)
	if s != abi.StatusOK || len(b) == 0 {
		return nil, s
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n), abi.StatusOK
}

// i32View returns n int32 values at guest offset ptr.
func i32View(mem api.Memory, ptr uint32, n int32) ([]int32, abi.Status) {
	b, s := span(mem, ptr, n, 4, 4)
	if s != abi.StatusOK || len(b) == 0 {
		return nil, s
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), n), abi.StatusOK
}

// byteView returns n bytes at guest offset ptr.
func byteView(mem api.Memory, ptr uint32, n int32) ([]byte, abi.Status) {
	return span(mem, ptr, n, 1, 1)
}

// putI32 writes v at the 4-byte aligned guest offset ptr.
func putI32(mem api.Memory, ptr uint32, v int32) abi.Status {
	if _, s := span(mem, ptr, 1, 4, 4); s != abi.StatusOK {
		return s
	}
	mem.WriteUint32Le(ptr, uint32(v))
	return abi.StatusOK
}

// checkOut verifies that a result slot of size bytes at ptr can be written,
// before any work whose result would otherwise be lost (a handle leaked).
func checkOut(mem api.Memory, ptr uint32, size uint32) abi.Status {
	_, s := span(mem, ptr, 1, size, size)
	return s
}

// putI64 writes v at the 8-byte aligned guest offset ptr.
func putI64(mem api.Memory, ptr uint32, v int64) abi.Status {
	if _, s := span(mem, ptr, 1, 8, 8); s != abi.StatusOK {
		return s
	}
	mem.WriteUint64Le(ptr, uint64(v))
	return abi.StatusOK
}
