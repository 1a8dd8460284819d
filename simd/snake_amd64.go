//go:build amd64 && gc && !purego

package simd

import "unsafe"

// snakeAVX2 computes SnakeBeta for n (a multiple of 8) channels of one row
// and reports whether some |x·a| exceeded snakeMaxArg (the row must then
// be redone by the generic level).
//
//go:noescape
func snakeAVX2(out, x, a, inv unsafe.Pointer, n int) (big bool)

// snakeAVX512 is snakeAVX2 on 16 channels a step (n a multiple of 8; the
// last 8 under a mask), the same operations per lane: the same bits.
//
//go:noescape
func snakeAVX512(out, x, a, inv unsafe.Pointer, n int) (big bool)
