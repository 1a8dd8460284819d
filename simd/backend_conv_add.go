package simd

// ConvAdd adds a causal dilated convolution to y: y += Conv(x) (x, m,
// batch and w as Conv), with the bits of Conv into a scratch followed by
// AddTo (each output's sum and bias rounded as Conv rounds them, then the
// add). On the VDPBF16PS path, and for a 1-tap int8 conv, the add is
// fused into the kernel's stores, so no scratch is written or read again
// (a residual unit's second conv, the codec's largest elementwise pass);
// elsewhere it runs as those two calls. It implements codec.ConvAddBackend.
func (b *Backend) ConvAdd(y, x []float32, m, batch int, w int32) error {
	c, err := b.convCall("ConvAdd", y, x, m, batch, w)
	if err != nil {
		return err
	}
	if c.dotPath() {
		b.convF32(y, x, m, batch, c, true)
		return nil
	}
	if c.q8c != nil && c.kernel == 1 {
		b.convQ8(y, x, m, batch, c, true)
		return nil
	}
	if cap(b.convSum) < len(y) {
		b.convSum = make([]float32, len(y))
	}
	sum := b.convSum[:len(y)]
	if err := b.Conv(sum, x, m, batch, w); err != nil {
		return err
	}
	return b.AddTo(y, sum)
}
