//go:build amd64 && gc && !purego

package simd

import "unsafe"

// snakeAVX2 computes SnakeBeta for n (a multiple of 8) channels of one row
// and reports whether some |x·a| exceeded snakeMaxArg (the row must then
// be redone by the generic level).
//
//go:noescape
func snakeAVX2(out, x, a, inv unsafe.Pointer, n int) (big bool)
