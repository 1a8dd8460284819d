package speaker

// Backend is the set of operations the speaker encoder runs on: the
// convolution subset of codec.Backend (same signatures and layout), so the
// native simd.Backend and the WASI guest's backend serve both graphs.
// Weights live behind int32 handles; activations are time-major []float32
// slices (x[t·c + i]) owned by the caller.
type Backend interface {
	// NewConv uploads a Conv1d weight in PyTorch layout w[o][i][j]
	// (out×in×kernel) with dilation and an optional bias (nil or out values).
	NewConv(out, in, kernel, dilation int, w, bias []float32, precision string) (int32, error)
	// Conv computes a dilated convolution for batch segments: segment b of
	// x holds (kernel−1)·dilation leading rows followed by m rows of in
	// channels, and segment b of y gets m rows of out channels:
	//	y[b][t][o] = bias[o] + Σ_j Σ_i w[o][i][j] · x[b][t + j·dilation][i]
	Conv(y, x []float32, m, batch int, w int32) error
	// Free releases a handle.
	Free(h int32) error
	// Bytes returns the bytes a handle occupies.
	Bytes(h int32) (int64, error)
}

// StatsBackend is an optional extension of Backend: one that offers it
// runs the attentive pooling's softmax over time and weighted statistics
// (simd.Backend does, over its worker threads); for any other the encoder
// computes them in Go with the same definition:
//
//	w[t][i] = softmax over t of logits[t][i]
//	out[i] = Σ_t w·x = mean,  out[c+i] = sqrt(max(Σ_t w·x² − mean², 1e-12))
type StatsBackend interface {
	SoftmaxStats(out, x, logits []float32, m, c int) error
}
