//go:build amd64 && gc && !purego

package simd

//go:noescape
func fmaPeakAVX2(n int)

//go:noescape
func fmaPeakAVX512(n int)

//go:noescape
func vnniPeakAVX512(n int)

//go:noescape
func int8PeakAVX2(n int)
