//go:build !linux

package bench

// threadCPU is unavailable off Linux.
func threadCPU() (float64, bool) { return 0, false }

// lockThread is a no-op off Linux.
func lockThread() func() { return func() {} }
