//go:build !linux

package simd

// vecThreadCPU is unavailable here: benchmarks report wall time only.
func vecThreadCPU() int64 { return -1 }
