//go:build !linux

package bench

// ProcessCPUMs is unavailable off Linux.
func ProcessCPUMs() float64 { return 0 }
