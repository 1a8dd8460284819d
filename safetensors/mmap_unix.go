//go:build linux || darwin || freebsd || netbsd || openbsd

package safetensors

import (
	"math"
	"os"
	"syscall"
)

// openRegion maps f (of size bytes) read-only; when the mapping fails (an
// empty file, a filesystem without mmap) it falls back to ReadAt. It takes
// ownership of f.
func openRegion(f *os.File, size int64) (region, error) {
	if size <= 0 || size > math.MaxInt {
		return &fileRegion{f: f}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return &fileRegion{f: f}, nil
	}
	if err := f.Close(); err != nil {
		syscall.Munmap(data)
		return nil, err
	}
	return &mappedRegion{data: data, unmap: syscall.Munmap}, nil
}
