package simd

// convQ8 is Conv's product on int8 weights (no bias).
func (b *Backend) convQ8(y, x []float32, m, batch int, c *convWeights) {
	panic("omni: BUG: int8 conv not built yet")
}

// gemmConvTQ8 is ConvTranspose's GEMM on int8 weights.
func (b *Backend) gemmConvTQ8(tmp, x []float32, m int, c *convWeights) {
	panic("omni: BUG: int8 conv not built yet")
}
