//go:build linux

package wcache

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size the mapping is aligned to, so that the kernel can
// back a privatized chunk with whole 2 MiB pages and move them as such.
const hugePage = 2 << 20

// mapFile maps size bytes of fd read-only and shared at an address
// aligned to hugePage, faulting the pages in up front (MAP_POPULATE: one
// pass instead of a fault per page).
func mapFile(fd *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	n := uintptr(pageRound(int(size)))
	at, err := reserveAligned(n, unix.PROT_NONE)
	if err != nil {
		return nil, nil, err
	}
	p, err := unix.MmapPtr(int(fd.Fd()), 0, at, n, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_FIXED|unix.MAP_POPULATE)
	if err != nil {
		unix.MunmapPtr(at, n)
		return nil, nil, err
	}
	return unsafe.Slice((*byte)(p), int(size)), func() error { return unix.MunmapPtr(p, n) }, nil
}

// privatizeChunk replaces b[off:off+n] (off a multiple of hugePage, n too
// or reaching the end of the mapping) of a mapping made by mapFile with a
// private anonymous copy at the same addresses: the copy is made in fresh
// memory (advised to use huge pages), made read-only, then moved over the
// range in one mremap, so a reader of the range sees the same bytes
// before, during and after.
func privatizeChunk(b []byte, off, n int) error {
	end := min(off+n, len(b))
	size := uintptr(pageRound(n))
	at, err := reserveAligned(size, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		return err
	}
	c := unsafe.Slice((*byte)(at), size)
	// Huge pages are advice: a kernel without them gives small pages.
	_ = unix.Madvise(c, unix.MADV_HUGEPAGE)
	copy(c, b[off:end]) // past end: zero, as the file mapping's last page
	if err := unix.Mprotect(c, unix.PROT_READ); err != nil {
		unix.MunmapPtr(at, size)
		return err
	}
	dst := unsafe.Pointer(&b[off])
	if _, err := unix.MremapPtr(at, size, dst, size, unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED); err != nil {
		unix.MunmapPtr(at, size)
		return err
	}
	return nil
}

// privatizable reports whether this platform's mappings can be privatized.
const privatizable = true

// reserveAligned maps n bytes of anonymous memory with prot at an address
// aligned to hugePage (the slack of the over-sized reservation is
// unmapped) and returns it.
func reserveAligned(n uintptr, prot int) (unsafe.Pointer, error) {
	r, err := unix.MmapPtr(-1, 0, nil, n+hugePage, prot, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	lead := (hugePage - uintptr(r)%hugePage) % hugePage
	if lead > 0 {
		unix.MunmapPtr(r, lead)
	}
	at := unsafe.Add(r, lead)
	if tail := hugePage - lead; tail > 0 {
		unix.MunmapPtr(unsafe.Add(at, n), tail)
	}
	return at, nil
}

// pageRound rounds n up to a whole number of pages.
func pageRound(n int) int {
	ps := os.Getpagesize()
	return (n + ps - 1) &^ (ps - 1)
}
