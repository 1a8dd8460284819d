//go:build amd64 && gc && !purego

package simd

// haveAsm reports whether this build carries the assembly kernels.
const haveAsm = true
