//go:build wasm

package sampler

// maxf is max(a, b) for float32; see maxfCmp.
func maxf(a, b float32) float32 { return maxfCmp(a, b) }
