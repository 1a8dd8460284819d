//go:build linux

package wcache

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of fd read-only and shared, faulting the pages
// in up front (MAP_POPULATE: one pass instead of a fault per page).
func mapFile(fd *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	b, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
