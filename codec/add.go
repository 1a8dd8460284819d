package codec

// AddBackend is an optional Backend operation the encoder and the decoder
// use for their residual adds when their backend offers it (simd.Backend
// does, vectorised over its worker pool): dst[i] += src[i]. Without it they
// add here; a float32 sum is the same bits either way.
type AddBackend interface {
	AddTo(dst, src []float32) error
}

// addInto adds src to dst (equal lengths) on add when it is not nil, else
// here.
func addInto(add AddBackend, dst, src []float32) error {
	if add != nil {
		return add.AddTo(dst, src)
	}
	for i, v := range src {
		dst[i] += v
	}
	return nil
}
