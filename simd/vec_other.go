//go:build !amd64 || !gc || purego

package simd

// Without assembly, Supported reports false for every level but Generic, so
// these are never called; they exist so the dispatch compiles everywhere.

func noAsm() { panic("omni: BUG: simd assembly kernel called in a build without assembly") }

func addAVX512(dst, x *float32, n int)               { noAsm() }
func addAVX2(dst, x *float32, n int)                 { noAsm() }
func scaleAVX512(x *float32, n int, alpha float32)   { noAsm() }
func scaleAVX2(x *float32, n int, alpha float32)     { noAsm() }
func axpyAVX512(y, x *float32, n int, alpha float32) { noAsm() }
func axpyAVX2(y, x *float32, n int, alpha float32)   { noAsm() }
func dotAVX512(x, y *float32, n int) float32         { noAsm(); return 0 }
func dotAVX2(x, y *float32, n int) float32           { noAsm(); return 0 }
