//go:build !amd64 || !gc || purego

package simd

import "unsafe"

func streamReadAVX512(p unsafe.Pointer, n int) uint64 {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}

func streamReadAVX2(p unsafe.Pointer, n int) uint64 {
	panic("omni: BUG: assembly kernel called in a build without assembly")
}
