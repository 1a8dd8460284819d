//go:build !linux

package wcache

import (
	"io"
	"os"
	"unsafe"
)

// mapFile reads the file into memory aligned to Align (no mmap here).
func mapFile(fd *os.File, size int64) ([]byte, func() error, error) {
	buf := make([]byte, size+Align)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (Align - 1))
	b := buf[off : off+int(size) : off+int(size)]
	if _, err := io.ReadFull(io.NewSectionReader(fd, 0, size), b); err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}

// privatizable reports whether this platform's mappings can be
// privatized: here the file is read into private memory already.
const privatizable = false

// privatizeChunk is never called here (privatizable is false).
func privatizeChunk(b []byte, off, n int) error { return nil }
