//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package safetensors

import "os"

// openRegion reads f with ReadAt: this platform has no mmap. It takes
// ownership of f.
func openRegion(f *os.File, size int64) (region, error) {
	return &fileRegion{f: f}, nil
}
