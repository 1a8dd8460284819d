package codec

// AddBackend is an optional Backend operation the encoder and the decoder
// use for their residual adds when their backend offers it (simd.Backend
// does, vectorised over its worker pool): dst[i] += src[i]. Without it they
// add here; a float32 sum is the same bits either way.
type AddBackend interface {
	AddTo(dst, src []float32) error
}

// ConvAddBackend is an optional Backend operation the decoder uses for a
// residual unit's second conv when its backend offers it (simd.Backend
// does): y += Conv(x), with the bits of Conv into a scratch followed by the
// add, so the samples do not depend on it. A backend can fuse the add into
// the conv's stores (simd does on its VDPBF16PS path) and spare a pass over
// the activation.
type ConvAddBackend interface {
	ConvAdd(y, x []float32, m, batch int, w int32) error
}

// ResUnitBackend is an optional Backend operation the decoder uses for a
// vocoder residual unit when its backend offers it (simd.Backend does): in
// one call, with the bits of the calls it replaces, on batch segments of m
// rows of ch channels in place,
//
//	cat = hist ‖ Snake(x, snake1)   (per segment: H history rows, then m)
//	x  += Conv(Snake(Conv(cat, conv1), snake2), conv2)
//	hist = the last H rows of cat
//
// where H = (kernel−1)·dilation of conv1 and conv2 has kernel 1. A backend
// can then keep each stretch of rows in cache through all four steps. It
// reports false, changing nothing, when it would gain nothing on these
// weights (another precision, too few rows), and the decoder makes the
// calls itself.
type ResUnitBackend interface {
	ResUnit(x, hist []float32, m, batch int, snake1, conv1, snake2, conv2 int32) (bool, error)
}

// SnakeConvTransposeBackend is an optional Backend operation the decoder
// uses for the start of a vocoder block when its backend offers it
// (simd.Backend does): ConvTranspose(y, Snake(x, snake), m, batch, w,
// carry) in one call, with the bits of the two, so a backend can keep
// each stretch of rows in cache from the activation to the overlap-add.
// It reports false, changing nothing, when it would gain nothing on these
// weights, and the decoder makes the calls itself.
type SnakeConvTransposeBackend interface {
	SnakeConvTranspose(y, x []float32, m, batch int, snake, w int32, carry []float32) (bool, error)
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

// NearestBackend is an optional Backend operation the encoder uses for its
// nearest-codeword search when its backend offers it (simd.Backend does, in
// AVX-512 over its worker pool): ids[t] = the n minimizing norm[n] −
// 2·scores[t·N+n] (float32 differences, the lowest index among ties, 0 when
// none is below +∞), N = len(norm), for T rows. Without it the encoder
// searches here with the same definition, so the codes are the same.
type NearestBackend interface {
	NearestCodes(ids []int32, scores, norm []float32, T int) error
}
