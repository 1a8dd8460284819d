//go:build !wasm

package sampler

// maxf is max(a, b) for float32 (the builtin; see maxfCmp for wasm).
func maxf(a, b float32) float32 { return max(a, b) }
