//go:build !linux

package bench

// processCPU is unavailable off Linux.
func processCPU() float64 { return 0 }
