package predictor

// Backend is the set of operations the decoder graph runs on. The graph never
// multiplies a matrix itself: every weight matrix, norm vector, embedding
// table, rotary table and KV cache lives behind the backend and is named by
// a handle (an int32 id); activations are plain slices owned by the caller.
//
// Only builtin types appear in the signatures, so an implementation need not
// import predictor: simd.Backend (native kernels) satisfies it structurally,
// and a WASI guest implements it with one host call per method. Every method
// must validate its handles and lengths and return an error (never panic) on
// a bad call. A Backend is used by one goroutine at a time; implementations
// may use worker threads inside a call.
//
// Matrix convention: a matrix handle holds W of shape rows×cols (PyTorch's
// (out, in)) and an optional bias of length rows; MatMul computes
// y[r][o] = Σ_i x[r][i]·W[o][i] + bias[o] for r < m.
type Backend interface {
	// NewMatrix uploads W (rows×cols, row-major) and an optional bias (nil or
	// length rows) in the named precision ("fp32", "int8" for block-quantized
	// int8, "int8-pertensor" for the one-scale-per-tensor demonstration
	// scheme) and returns its handle. data is not retained.
	NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error)
	// NewVector uploads a weight vector (an RMSNorm gain) and returns its handle.
	NewVector(data []float32) (int32, error)
	// NewTable uploads an fp32 embedding table (rows×cols) and returns its
	// handle; nil data makes a zero table to fill with WriteTable.
	NewTable(rows, cols int, data []float32) (int32, error)
	// WriteTable overwrites whole rows row0.. of a table with data (a
	// multiple of cols values), so big tables load in pieces.
	WriteTable(table int32, row0 int, data []float32) error
	// NewRope builds the rotate-half rotary tables for headDim and positions
	// 0..maxPos-1 with base theta and returns their handle.
	NewRope(headDim, maxPos int, theta float32) (int32, error)
	// NewKVCache allocates a KV cache for layers layers, kvHeads heads of
	// headDim values and maxPos positions and returns its handle.
	NewKVCache(layers, kvHeads, headDim, maxPos int) (int32, error)
	// Free releases a handle of any kind.
	Free(h int32) error
	// Bytes returns the bytes a handle occupies (for a matrix: the bytes one
	// MatMul reads).
	Bytes(h int32) (int64, error)

	// MatMul computes y[m×rows] = x[m×cols]·Wᵀ (+ bias).
	MatMul(y, x []float32, m int, w int32) error
	// MatMulAdd computes y[m×rows] += x[m×cols]·Wᵀ (+ bias): the residual add.
	MatMulAdd(y, x []float32, m int, w int32) error
	// RMSNorm computes out[r] = x[r] / sqrt(mean(x[r]²) + eps) · w for the m
	// rows of width len(w).
	RMSNorm(out, x []float32, m int, w int32, eps float32) error
	// SwiGLU computes out[r][i] = silu(gu[r][i]) · gu[r][n+i] for m rows,
	// where gu rows are 2n wide (gate then up) and out rows n wide.
	SwiGLU(out, gu []float32, m int) error
	// Embed writes out row r = Σ_{j<perRow} table[ids[r·perRow+j]], for
	// len(ids)/perRow rows.
	Embed(out []float32, ids []int32, perRow int, table int32) error
	// Attention runs one layer's attention for m rows. Row r of qkv is
	// [q (heads·hd) | k (kvh·hd) | v (kvh·hd)]; each row's q and k heads are
	// RMS-normalised with qNorm/kNorm (eps), rotated by rope at position
	// pos[r], and its k and v are stored in cache caches[r] (layer layer) at
	// pos[r]; then, after every row is stored, row r attends over positions
	// 0..pos[r] of its cache with scale 1/sqrt(hd), writing heads·hd values
	// to out row r. Rows of one cache at increasing positions thus form a
	// causal prefill; rows of different caches a batched decode.
	Attention(out, qkv []float32, m int, caches, pos []int32, layer int, qNorm, kNorm, rope int32, heads int, eps float32) error
}
