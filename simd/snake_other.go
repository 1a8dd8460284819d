//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func snakeAVX2(out, x, a, inv unsafe.Pointer, n int) bool {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func snakeAVX512(out, x, a, inv unsafe.Pointer, n int) bool {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
