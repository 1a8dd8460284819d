//go:build !amd64 || !gc || purego

package simd

func fmaPeakAVX2(n int)    { panic("omni: BUG: assembly kernel called in a build without assembly") }
func fmaPeakAVX512(n int)  { panic("omni: BUG: assembly kernel called in a build without assembly") }
func vnniPeakAVX512(n int) { panic("omni: BUG: assembly kernel called in a build without assembly") }
func int8PeakAVX2(n int)   { panic("omni: BUG: assembly kernel called in a build without assembly") }
