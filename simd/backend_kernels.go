package simd

// This file adapts the Backend's ops to simd's kernels: it is the only place
// the Backend names a kernel, so a kernel's signature change touches one file.

// f32Weights is an fp32 matrix W (rows×cols, row-major).
type f32Weights struct {
	rows, cols int
	w          []float32
}

// newF32Weights copies W.
func newF32Weights(w []float32, rows, cols int) (*f32Weights, error) {
	return &f32Weights{rows: rows, cols: cols, w: append([]float32(nil), w...)}, nil
}

// f32Task computes output rows [lo, hi) of y = x·Wᵀ for every input row:
// y[i][r] = Dot(x[i], W[r]). Each output is one Dot of two fixed rows, so
// a row's result does not depend on how many rows ran with it (a batched
// step equals single-row steps bit for bit), and each weight row is read
// from memory once for all m inputs (it stays in L1 across them).
type f32Task struct {
	y, x []float32
	m    int
	w    *f32Weights
}

// RunRange implements Task.
func (t *f32Task) RunRange(lo, hi int) {
	c, n := t.w.cols, t.w.rows
	for r := lo; r < hi; r++ {
		wr := t.w.w[r*c : (r+1)*c]
		for i := 0; i < t.m; i++ {
			t.y[i*n+r] = Dot(t.x[i*c:(i+1)*c], wr)
		}
	}
}

// gemmF32 computes y[m×rows] = x[m×cols]·Wᵀ on the pool.
func (b *Backend) gemmF32(y, x []float32, m int, w *f32Weights) {
	t := &b.f32
	t.y, t.x, t.m, t.w = y, x, m, w
	if b.pool != nil {
		b.pool.Run(t, w.rows, PanelRows)
	} else {
		t.RunRange(0, w.rows)
	}
	t.y, t.x, t.w = nil, nil, nil
}

// gemmQ8 computes y[m×rows] = x·Wᵀ for quantized x on the pool.
func (b *Backend) gemmQ8(y []float32, x *Q8Input, w *Q8Matrix) {
	if b.pool != nil {
		b.pool.GemmQ8(y, x, w)
		return
	}
	GemmQ8(y, x, w)
}

// workers is the Backend's thread pool.
type workers = Pool

func newWorkers(threads int) *workers { return NewPool(threads) }

// rmsNorm writes out[r] = x[r] / sqrt(mean(x[r]²) + eps) · w for m rows
// (out may be x).
func rmsNorm(out, x []float32, m int, w []float32, eps float32) {
	RMSNorm(out, x, w, m, eps)
}

// rmsNormHeads normalises every headDim-wide head of x in place.
func rmsNormHeads(x, w []float32, eps float32) {
	RMSNormHeads(x, w, len(w), eps)
}

// ropeTable holds the rotate-half tables.
type ropeTable = Rope

// newRopeTable builds the rotate-half tables.
func newRopeTable(headDim, maxPos int, theta float32) (*ropeTable, error) {
	return NewRope(headDim, float64(theta), maxPos)
}

// ropeApply rotates nHeads heads of x to position pos.
func ropeApply(t *ropeTable, x []float32, nHeads, pos int) { t.Apply(x, nHeads, pos) }

// siluMul writes out[i] = silu(gate[i])·up[i].
func siluMul(out, gate, up []float32) { SiLUMul(out, gate, up) }

// attend computes query heads [h0, h1) of one row's grouped-query attention
// over nPos cached positions (k, v [pos][nKV][headDim]); scores needs
// nPos·nHeads/nKV values.
func attend(out, q, k, v []float32, nPos, nHeads, nKV, headDim int, scale float32, scores []float32, h0, h1 int) {
	AttentionHeads(out, q, k, v, nPos, nHeads, nKV, headDim, scale, scores, h0, h1)
}

// rotMax caps the width of the Hadamard rotation applied to the inputs of
// an int8 matrix.
const rotMax = 64

// rotWidth returns the rotation width for rows of cols inputs: the largest
// power of two ≤ rotMax that divides cols (1: no rotation).
func rotWidth(cols int) int {
	n := 1
	for n < rotMax && cols%(2*n) == 0 {
		n *= 2
	}
	return n
}

// hadamardBlocks applies, in place, the orthonormal Sylvester Hadamard
// transform H (H = Hᵀ = H⁻¹, entries ±1/√n, n = rotWidth(cols)) to every
// n-wide block of each of the m rows of x (row width cols).
func hadamardBlocks(x []float32, m, cols int) {
	Hadamard(x[:m*cols], rotWidth(cols))
}
