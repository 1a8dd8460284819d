package codec

// Backend is the set of operations the codec decoder graph runs on, in the
// manner of predictor.Backend: every weight (linear and conv kernels, norm
// gains and biases, SnakeBeta parameters, codebook tables) and every
// per-stream attention window lives behind an int32 handle; activations are
// plain []float32 slices owned by the caller. Only builtin types appear, so
// simd.Backend satisfies it structurally and a WASI guest implements it with
// one host call per method. Every method validates its handles and lengths
// and returns an error (never panics) on a bad call. A Backend is used by
// one goroutine at a time; implementations may use worker threads inside a
// call.
//
// Layout: activations are time-major. A block of m rows of width c holds
// x[t·c + i] for position t < m and channel i < c (the transpose of
// PyTorch's [C, T]). Several streams are batched by placing their segments
// one after another (batch segments of the stated row count each).
//
// Precision names: "fp32" (the reference), and the reduced precisions the
// implementation documents (for example "int8" or "bf16"); small tensors
// (norms, biases, α/β, layer scales, codebooks) are always fp32.
type Backend interface {
	// NewMatrix uploads a linear layer W (rows×cols, PyTorch (out, in)) with
	// an optional bias (nil or rows values): MatMul computes
	// y[r][o] = Σ_i x[r][i]·W[o][i] + bias[o].
	NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error)
	// NewConv uploads a Conv1d weight in PyTorch layout w[o][i][j]
	// (out×in×kernel) with dilation and an optional bias (nil or out values).
	NewConv(out, in, kernel, dilation int, w, bias []float32, precision string) (int32, error)
	// NewConvTranspose uploads a ConvTranspose1d weight in PyTorch layout
	// w[i][o][j] (in×out×kernel), kernel >= stride, with an optional bias.
	NewConvTranspose(in, out, kernel, stride int, w, bias []float32, precision string) (int32, error)
	// NewDepthwise uploads a depthwise Conv1d (groups = channels) weight
	// w[c][0][j] (ch×1×kernel) with an optional bias.
	NewDepthwise(ch, kernel int, w, bias []float32) (int32, error)
	// NewVector uploads a weight vector (a norm gain or bias, a layer scale).
	NewVector(data []float32) (int32, error)
	// NewTable uploads an fp32 table (rows×cols) for Embed.
	NewTable(rows, cols int, data []float32) (int32, error)
	// NewSnake uploads SnakeBeta parameters for ch channels, as stored (log
	// scale): Snake computes y = x + sin²(x·exp(α[c])) / (exp(β[c]) + 1e-9).
	NewSnake(ch int, alpha, beta []float32) (int32, error)
	// NewWindowKV allocates one stream's attention state for layers layers
	// of heads×headDim keys and values over the last window positions.
	NewWindowKV(layers, heads, headDim, window int) (int32, error)
	// ResetKV empties a window KV state (a new stream).
	ResetKV(h int32) error
	// Free releases a handle of any kind.
	Free(h int32) error
	// Bytes returns the bytes a handle occupies.
	Bytes(h int32) (int64, error)

	// MatMul computes y[m×rows] = x[m×cols]·Wᵀ (+ bias).
	MatMul(y, x []float32, m int, w int32) error
	// Conv computes a causal dilated convolution for batch segments. Segment
	// b of x holds (kernel−1)·dilation history rows followed by m new rows of
	// in channels; segment b of y gets m rows of out channels:
	//	y[b][t][o] = bias[o] + Σ_j Σ_i w[o][i][j] · x[b][t + j·dilation][i]
	Conv(y, x []float32, m, batch int, w int32) error
	// ConvTranspose computes a transposed convolution for batch segments of m
	// input rows (in channels), writing m·stride output rows (out channels)
	// per segment. carry holds batch×(kernel−stride)×out partial sums
	// (without bias) that earlier input rows contributed to the next
	// kernel−stride output rows; it is added in and replaced, so a zero carry
	// is the start of a stream and the output is right-trimmed by
	// kernel−stride (the causal form):
	//	full[t·stride + j][o] += Σ_i x[t][i] · w[i][o][j]; y = full + bias
	ConvTranspose(y, x []float32, m, batch int, w int32, carry []float32) error
	// Depthwise computes a causal depthwise convolution: segment b of x
	// holds kernel−1 history rows then m new rows of ch channels:
	//	y[b][t][c] = bias[c] + Σ_j w[c][j] · x[b][t + j][c]
	Depthwise(y, x []float32, m, batch int, w int32) error
	// RMSNorm computes out[r] = x[r] / sqrt(mean(x[r]²) + eps) · w.
	RMSNorm(out, x []float32, m int, w int32, eps float32) error
	// LayerNorm computes out[r] = (x[r] − mean) / sqrt(var + eps) · w + b
	// (biased variance, as torch.nn.LayerNorm).
	LayerNorm(out, x []float32, m int, w, b int32, eps float32) error
	// SwiGLU computes out[r][i] = silu(gu[r][i]) · gu[r][n+i] (gate then up,
	// rows 2n wide).
	SwiGLU(out, gu []float32, m int) error
	// GELU computes out[i] = x[i]·(1 + erf(x[i]/√2))/2 (the exact form).
	GELU(out, x []float32) error
	// Snake applies SnakeBeta h to m rows of its ch channels.
	Snake(out, x []float32, m int, h int32) error
	// Scale computes out[r][c] = x[r][c] · s[c] (LayerScale).
	Scale(out, x []float32, m int, s int32) error
	// Embed writes out row r = Σ_{j<perRow} table[ids[r·perRow+j]].
	Embed(out []float32, ids []int32, perRow int, table int32) error
	// WindowAttention runs one layer's sliding-window attention for m rows,
	// in order. Row r of qkv is [q (heads·hd) | k (heads·hd) | v (heads·hd)];
	// q and k are rotated (rotate-half RoPE with base theta, inverse
	// frequencies and angles computed in float32 as PyTorch does) at
	// position pos[r]; k and v are stored in state kv[r] (layer layer); then
	// the row attends with scale 1/sqrt(hd) over that state's positions
	// pos[r]−window+1 .. pos[r] (those ≥ 0), writing heads·hd values to out
	// row r. A state's rows must come at consecutive positions.
	WindowAttention(out, qkv []float32, m int, kv, pos []int32, layer, heads, headDim int, theta float32) error
}
