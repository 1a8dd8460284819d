package simd

import (
	"fmt"
	"math"
)

// Backend is the native implementation of predictor.Backend: every weight
// matrix, norm vector, embedding table, rotary table and KV cache lives here
// behind an int32 handle, and the graph's ops run on simd's kernels. It
// satisfies predictor.Backend structurally (only builtin types in the
// signatures), so simd does not import predictor.
//
// Every method checks its handles and slice lengths and returns an error for
// a bad call; none panics on caller input. A Backend is used by one goroutine
// at a time (it keeps scratch buffers); its kernels may use the worker pool.
// After warm-up (first use of each shape) its ops allocate nothing.
type Backend struct {
	pool *workers
	objs []object
	free []int32

	inputs  []*Q8Input // activation buffers by cols
	tmp     []float32  // rotated / fake-quantized activations
	addTmp  []float32  // MatMulAdd's product
	attnTmp []float32  // each row's attention scores
	qkTmp   []float32  // each row's normed, rotated q
	attn    attnRows   // Attention's phase 2 task
	attnCut []int      // its parts' first rows (parts+1 bounds)
	f32     f32Task    // the fp32 product's task (no allocation per call)

	// codec ops (backend_codec_ops.go)
	convT     convTask
	convRowT  convRowTask // convT's rows split over the pool (few output panels)
	convJobs  []convJob
	convPad   []float32   // the jobs' padded leftover rows
	convX     []float32   // dilated convs' gathered phases
	convXB    []uint16    // the VDPBF16PS path: conv inputs rounded to bf16
	convSum   []float32   // ConvAdd off the fused path: the conv before the add
	roundT    roundTask   // the VDPBF16PS path: the rounding split over the pool
	convTmp   []float32   // transposed convs' GEMM output and new carry
	overlapT  overlapTask // transposed convs' overlap-add split over the pool
	convQ8X   []byte      // int8 convs' quantized input rows
	convQ8Job q8Job       // int8 convs' row list
	convQ8T   q8ConvTask  // int8 convs' pool task
	// grouped (AVX-512) convs: small jobs' rows, packed, and their outputs
	convSmall  []convSmallRow
	convSmallX []float32
	convSmallY []float32
	groupHook  *convGroupHook // tests only: an emulated grouped kernel
	convBF     bool           // the conv call being set up has bf16 weights
	snakeT     snakeTask
	geluT      geluTask
	eluT       eluTask
	addT       addTask
	nearT      nearTask
	lnT        rowOpTask // LayerNorm's and Scale's rows split over the pool
	attnWin    []float32 // WindowAttention's per-head rotated q and scores
	winT       winAttnTask
	winRope    winRopeTable   // WindowAttention's cos and sin of the last call's positions
	resT       resUnitTask    // ResUnit's call (backend_res_unit.go)
	resHalo    []uint16       // ResUnit: each tile's history rows, bf16
	resHalo8   []byte         // ResUnit: each tile's history rows, int8
	resHist    []float32      // ResUnit: each segment's new history
	slots      []tileSlot     // the tiled ops' per-thread scratch (tiled_ops.go)
	tileRows   int            // the tiled ops' rows per tile; 0: by their bytes (SetTileRows)
	snakeConvT snakeConvTTask // SnakeConvTranspose's call (backend_snake_convt.go)
	convTNext  []float32      // SnakeConvTranspose: each segment's new carry

	wc     cacheState       // the prepared-weights cache's recording or replay (prepared.go)
	prep   []float32        // NewMatrix's rotated copy of the weights (prepare_parallel.go)
	statsT softmaxStatsTask // the speaker encoder's pooling (backend_speaker.go)
}

// NewBackend returns a Backend whose matrix products run on threads worker
// threads (≤ 1 runs them on the calling goroutine).
func NewBackend(threads int) *Backend {
	b := &Backend{}
	if threads > 1 {
		b.pool = newWorkers(threads)
	}
	return b
}

// SetThreads makes the next kernel calls use n of the backend's worker
// threads (n ≤ 0: all of them; at most NewBackend's threads) and returns
// the number set. A stage that shares the machine with another (the codec
// beside generation) runs on few threads while the other is busy and on
// all of them while it waits. Safe from any goroutine.
func (b *Backend) SetThreads(n int) int {
	if b.pool == nil {
		return 1
	}
	if n <= 0 {
		n = b.pool.Threads()
	}
	return b.pool.SetActive(n)
}

// ActiveThreads returns the threads the next kernel calls use (SetThreads).
func (b *Backend) ActiveThreads() int {
	if b.pool == nil {
		return 1
	}
	return b.pool.Active()
}

// Close stops the worker pool and drops every handle.
func (b *Backend) Close() {
	if b.pool != nil {
		b.pool.Close()
		b.pool = nil
	}
	b.objs, b.free = nil, nil
	b.closeFiles()
}

// objKind tells what a handle holds.
type objKind uint8

const (
	kindNone objKind = iota
	kindMatrix
	kindVector
	kindTable
	kindRope
	kindKV
	kindConv
	kindConvT
	kindDepthwise
	kindSnake
	kindWindowKV
)

func (k objKind) String() string {
	return [...]string{"freed", "matrix", "vector", "table", "rope", "kv cache",
		"conv", "transposed conv", "depthwise conv", "snake", "window kv"}[k]
}

// object is one handle's payload.
type object struct {
	kind       objKind
	rows, cols int
	// matrix
	q8        *Q8Matrix
	q4        *Q4Matrix
	f32       *f32Weights
	bias      []float32
	perTensor bool // fp32 weights that were quantized per tensor; activations too
	mapped    bool // replayed from a cache file: read-only (prepared.go)
	// vector, table
	data []float32
	// rope
	rope *ropeTable
	// kv cache: k and v per layer, [pos][kvHeads][headDim]
	kv                       [][]float32
	layers, kvHeads, headDim int
	maxPos                   int
	// conv, transposed conv, depthwise, snake, window kv (backend_codec.go)
	conv  *convWeights
	dw    *depthwiseWeights
	snake *snakeParams
	win   *windowKV
}

// put stores o and returns its handle.
func (b *Backend) put(o object) int32 {
	if n := len(b.free); n > 0 {
		h := b.free[n-1]
		b.free = b.free[:n-1]
		b.objs[h] = o
		return h
	}
	b.objs = append(b.objs, o)
	return int32(len(b.objs) - 1)
}

// get returns handle h if it holds kind k.
func (b *Backend) get(h int32, k objKind, what string) (*object, error) {
	if h < 0 || int(h) >= len(b.objs) {
		return nil, fmt.Errorf("simd: backend: %s handle %d does not exist", what, h)
	}
	o := &b.objs[h]
	if o.kind != k {
		return nil, fmt.Errorf("simd: backend: %s handle %d holds a %s, want a %s", what, h, o.kind, k)
	}
	return o, nil
}

// checkFinite refuses NaN and infinities in uploaded weights.
func checkFinite(what string, v []float32) error {
	if i := firstNonFinite(v); i >= 0 {
		return fmt.Errorf("simd: backend: %s[%d] = %v is not finite", what, i, v[i])
	}
	return nil
}

// NewMatrix uploads W (rows×cols) with an optional bias in precision "fp32",
// "int8" (blocks of DefaultBlock), "int4" or "int4-uniform" (4-bit codes,
// backend_q4.go) or "int8-pertensor" (one scale per matrix and per
// activation matrix, simulated in fp32). It implements predictor.Backend.
func (b *Backend) NewMatrix(rows, cols int, data, bias []float32, precision string) (int32, error) {
	sig := sigMatrix(rows, cols, bias != nil, precision)
	if b.replaying() {
		return b.replayNext(sig)
	}
	if rows < 1 || cols < 1 || rows > 1<<24 || cols > 1<<24 {
		return -1, fmt.Errorf("simd: backend: matrix %d×%d: sizes must be in [1, 2²⁴]", rows, cols)
	}
	if len(data) != rows*cols {
		return -1, fmt.Errorf("simd: backend: matrix %d×%d given %d values", rows, cols, len(data))
	}
	if bias != nil && len(bias) != rows {
		return -1, fmt.Errorf("simd: backend: matrix %d×%d given a bias of %d values", rows, cols, len(bias))
	}
	if err := checkFinite("matrix", data); err != nil {
		return -1, err
	}
	if err := checkFinite("bias", bias); err != nil {
		return -1, err
	}
	o := object{kind: kindMatrix, rows: rows, cols: cols}
	if bias != nil {
		o.bias = append([]float32(nil), bias...)
	}
	switch precision {
	case "fp32":
		m, err := newF32Weights(data, rows, cols)
		if err != nil {
			return -1, fmt.Errorf("simd: backend: %w", err)
		}
		o.f32 = m
	case "int8":
		w := b.prepScratch(len(data))
		copy(w, data)
		hadamardWeights(w, rows, cols)
		m, err := QuantizeQ8(w, rows, cols, DefaultBlock)
		if err != nil {
			return -1, fmt.Errorf("simd: backend: %w", err)
		}
		o.q8 = m
	case PrecInt4, PrecInt4Uniform:
		m, err := quantizeQ4Rotated(data, rows, cols, precision)
		if err != nil {
			return -1, fmt.Errorf("simd: backend: %w", err)
		}
		o.q4 = m
	case "int8-pertensor":
		w := make([]float32, len(data))
		fakeQuantTensor(w, data)
		m, err := newF32Weights(w, rows, cols)
		if err != nil {
			return -1, fmt.Errorf("simd: backend: %w", err)
		}
		o.f32, o.perTensor = m, true
	default:
		return -1, fmt.Errorf("simd: backend: matrix precision %q unknown (want fp32, int8, %s, %s or int8-pertensor)", precision, PrecInt4, PrecInt4Uniform)
	}
	return b.made(o, sig), nil
}

// fakeQuantTensor writes to dst src quantized to int8 with one scale for the
// whole tensor (absmax/127) and dequantized again.
func fakeQuantTensor(dst, src []float32) {
	var absmax float64
	for _, v := range src {
		absmax = math.Max(absmax, math.Abs(float64(v)))
	}
	if absmax == 0 {
		clear(dst)
		return
	}
	s := absmax / 127
	for i, v := range src {
		dst[i] = float32(math.RoundToEven(float64(v)/s) * s)
	}
}

// NewVector uploads a weight vector. It implements predictor.Backend.
func (b *Backend) NewVector(data []float32) (int32, error) {
	if b.replaying() {
		return b.replayNext(sigVector(len(data)))
	}
	if len(data) < 1 {
		return -1, fmt.Errorf("simd: backend: empty vector")
	}
	if err := checkFinite("vector", data); err != nil {
		return -1, err
	}
	return b.made(object{kind: kindVector, cols: len(data), data: append([]float32(nil), data...)}, sigVector(len(data))), nil
}

// NewTable uploads an fp32 embedding table (nil data: zeros). It implements
// predictor.Backend.
func (b *Backend) NewTable(rows, cols int, data []float32) (int32, error) {
	if b.replaying() {
		return b.replayNext(sigTable(rows, cols))
	}
	if rows < 1 || cols < 1 || int64(rows)*int64(cols) > 1<<32 {
		return -1, fmt.Errorf("simd: backend: table %d×%d: sizes must be ≥ 1 and at most 2³² values", rows, cols)
	}
	if data != nil && len(data) != rows*cols {
		return -1, fmt.Errorf("simd: backend: table %d×%d given %d values", rows, cols, len(data))
	}
	if err := checkFinite("table", data); err != nil {
		return -1, err
	}
	t := make([]float32, rows*cols)
	copy(t, data)
	return b.made(object{kind: kindTable, rows: rows, cols: cols, data: t}, sigTable(rows, cols)), nil
}

// WriteTable overwrites rows row0.. of a table. It implements
// predictor.Backend.
func (b *Backend) WriteTable(table int32, row0 int, data []float32) error {
	o, err := b.get(table, kindTable, "table")
	if err != nil {
		return err
	}
	if b.replaying() && o.mapped {
		return nil // the rows are in the cache file
	}
	if o.mapped {
		return fmt.Errorf("simd: backend: write into table %d, which is mapped read-only from the prepared-weights cache", table)
	}
	if len(data)%o.cols != 0 || row0 < 0 || row0+len(data)/o.cols > o.rows {
		return fmt.Errorf("simd: backend: write of %d values at row %d into a %d×%d table", len(data), row0, o.rows, o.cols)
	}
	if err := checkFinite("table", data); err != nil {
		return err
	}
	copy(o.data[row0*o.cols:], data)
	return nil
}

// NewRope builds rotary tables. It implements predictor.Backend.
func (b *Backend) NewRope(headDim, maxPos int, theta float32) (int32, error) {
	if b.replaying() {
		return b.replayNext(sigRope(headDim, maxPos, theta))
	}
	if headDim < 2 || headDim%2 != 0 || headDim > 1<<12 || maxPos < 1 || maxPos > 1<<20 || !(theta > 1) {
		return -1, fmt.Errorf("simd: backend: rope head_dim %d, max positions %d, theta %v: want an even head_dim ≤ 4096, 1..2²⁰ positions and theta > 1", headDim, maxPos, theta)
	}
	r, err := newRopeTable(headDim, maxPos, theta)
	if err != nil {
		return -1, fmt.Errorf("simd: backend: %w", err)
	}
	return b.made(object{kind: kindRope, cols: headDim, maxPos: maxPos, rope: r}, sigRope(headDim, maxPos, theta)), nil
}

// NewKVCache allocates a zeroed fp32 KV cache. It implements
// predictor.Backend.
func (b *Backend) NewKVCache(layers, kvHeads, headDim, maxPos int) (int32, error) {
	if layers < 1 || kvHeads < 1 || headDim < 1 || maxPos < 1 ||
		int64(layers)*int64(kvHeads)*int64(headDim)*int64(maxPos) > 1<<33 {
		return -1, fmt.Errorf("simd: backend: kv cache %d layers × %d heads × %d × %d positions: sizes must be ≥ 1 and at most 2³³ values", layers, kvHeads, headDim, maxPos)
	}
	o := object{kind: kindKV, layers: layers, kvHeads: kvHeads, headDim: headDim, maxPos: maxPos}
	per := maxPos * kvHeads * headDim
	o.kv = make([][]float32, 2*layers)
	for i := range o.kv {
		o.kv[i] = make([]float32, per)
	}
	return b.put(o), nil
}

// Free releases a handle. It implements predictor.Backend.
func (b *Backend) Free(h int32) error {
	if h < 0 || int(h) >= len(b.objs) || b.objs[h].kind == kindNone {
		return fmt.Errorf("simd: backend: free of handle %d, which is not live", h)
	}
	b.objs[h] = object{}
	b.free = append(b.free, h)
	return nil
}

// Bytes returns the bytes a handle occupies; for a matrix, the bytes one
// MatMul streams. It implements predictor.Backend.
func (b *Backend) Bytes(h int32) (int64, error) {
	if h < 0 || int(h) >= len(b.objs) || b.objs[h].kind == kindNone {
		return 0, fmt.Errorf("simd: backend: handle %d is not live", h)
	}
	o := &b.objs[h]
	switch o.kind {
	case kindMatrix:
		n := int64(4 * len(o.bias))
		if o.q8 != nil {
			return n + int64(o.q8.Bytes()), nil
		}
		if o.q4 != nil {
			return n + int64(o.q4.Bytes()), nil
		}
		return n + int64(4*o.rows*o.cols), nil
	case kindVector, kindTable:
		return int64(4 * len(o.data)), nil
	case kindRope:
		return int64(4 * o.maxPos * o.cols), nil
	case kindKV:
		return int64(4 * 2 * o.layers * o.maxPos * o.kvHeads * o.headDim), nil
	case kindConv, kindConvT:
		return o.conv.bytes(), nil
	case kindDepthwise:
		return int64(4 * (len(o.dw.w) + len(o.dw.bias))), nil
	case kindSnake:
		return int64(4 * 2 * len(o.snake.a)), nil
	case kindWindowKV:
		return o.win.bytes(), nil
	}
	return 0, nil
}
