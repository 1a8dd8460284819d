package simd

// This file is the fp32 GEMM behind the codec's convolutions: output rows of
// a packed F32Matrix W (K = W.Cols() inputs) against m input rows read at
// any row stride ldx, written at any row stride ldy. A causal conv of
// dilation 1 reads its im2col rows straight from the time-major input (row
// t's K = kernel·in inputs are rows t … t+kernel−1, contiguous; ldx = in),
// a dilated one from one gathered copy per phase (conv_task.go). The
// kernels: at AVX2 and AVX-512 a row list (6 rows per call, each with its
// own input and output pointer; 12 ymm accumulators, or at AVX-512 24 zmm
// over 4 panels), at generic a plain loop; in every one each output sums
// its K products in input order in one accumulator (the grouped strided
// path, convGemmGroups, remains for an injected kernel in tests).

// ConvGemm computes, single-threaded, for i < m and every output row r of W,
//
//	y[i*ldy+r] = Σ_{k<K} x[i*ldx+k] · W[r][k]     (K = w.Cols())
//
// in float32. ldx may be smaller than K: row i's inputs then overlap row
// i+1's (a conv's im2col view). Every row's sum is computed in the same
// order whatever m is and whichever rows run with it, so splitting rows
// over calls gives the same bits. The assembly levels use FMA, the generic
// level rounds each product, so levels agree to float32 rounding: |Δ| ≤
// (K+2)·2⁻²³·Σ_k |x·w|.
func ConvGemm(y []float32, ldy int, x []float32, ldx, m int, w *F32Matrix) {
	if m < 1 || ldx < 0 || ldy < w.rows || len(x) < (m-1)*ldx+w.cols || len(y) < (m-1)*ldy+w.rows {
		panic("simd: ConvGemm: bad sizes")
	}
	t := &convTask{l: active, g: 1, w: w, taps: 1, jobs: []convJob{{y: y, x: x, ldy: ldy, ldx: ldx, m: m}}}
	t.rows = t.l != Generic && haveAsm
	if t.rows {
		t.listRows()
	}
	t.RunRange(0, w.panels)
}

// convChunkBytes bounds the weight panels one kernel call streams for a
// group of rows (they stay in L2 across the groups), which also keeps each
// assembly call far below a millisecond.
const convChunkBytes = 128 << 10

// fillConvPadG copies into pad ((g−1)·ldx + k floats) the rows of x left
// over after the full groups of g rows, zero-padded to a group.
func fillConvPadG(g int, pad, x []float32, ldx, m, k int) {
	if g == 1 {
		return
	}
	i0 := m / g * g
	pad = pad[:(g-1)*ldx+k]
	n := 0
	if i0 < m {
		n = copy(pad, x[i0*ldx:min(len(x), (m-1)*ldx+k)])
	}
	clear(pad[n:])
}

// convTileLen returns the floats convGemmGroups needs in tiles for a
// kernel of g rows and w's panels.
func convTileLen(g int, w *F32Matrix) int { return g * PanelRows * w.panels }

// convGroupKernel computes a group of rows of x (stride ldx floats)
// against np panels of k inputs from wd, 16 outputs per panel per row into
// y (stride ldy floats).
type convGroupKernel func(y []float32, ldy int, x []float32, ldx, k int, wd []float32, np int)

// convGemmGroups is ConvGemm for output panels [p0, p1) of w with a
// kernel of g rows: full groups in place, the last partial panel and the
// rows left over (from pad) through a tile. tiles holds g·PanelRows floats
// per panel of w (convTileLen): panel p's tile is its own, so threads given
// disjoint panels never share one, and the tile lives in the caller's
// scratch (a stack array handed to kern, a function value, would escape
// and be allocated on every call).
func convGemmGroups(g int, kern convGroupKernel, y []float32, ldy int, x []float32, ldx, m int, w *F32Matrix, p0, p1 int, pad, tiles []float32) {
	k := w.cols
	pb := PanelRows * k
	chunk := max(1, convChunkBytes/(4*pb))
	full := w.rows / PanelRows // panels with 16 real rows
	mFull := m / g * g
	ts := g * PanelRows
	if len(tiles) < p1*ts {
		panic("omni: BUG: conv tiles shorter than the panels")
	}
	for pc := p0; pc < p1; pc += chunk {
		n := min(chunk, p1-pc)
		nf := max(0, min(n, full-pc)) // full panels in this chunk
		for i0 := 0; i0 < mFull; i0 += g {
			if nf > 0 {
				kern(y[i0*ldy+pc*PanelRows:], ldy, x[i0*ldx:], ldx, k, w.data[pc*pb:], nf)
			}
			for p := pc + nf; p < pc+n; p++ { // the last, partial panel
				tile := tiles[p*ts : (p+1)*ts]
				kern(tile, PanelRows, x[i0*ldx:], ldx, k, w.data[p*pb:], 1)
				nr := w.rows - p*PanelRows
				for j := 0; j < g; j++ {
					copy(y[(i0+j)*ldy+p*PanelRows:][:nr], tile[j*PanelRows:][:nr])
				}
			}
		}
		if mFull == m {
			continue
		}
		// Rows left over: the kernel on the zero-padded copy, into the tile.
		left := m - mFull
		for p := pc; p < pc+n; p++ {
			tile := tiles[p*ts : (p+1)*ts]
			kern(tile, PanelRows, pad, ldx, k, w.data[p*pb:], 1)
			nr := min(PanelRows, w.rows-p*PanelRows)
			for j := 0; j < left; j++ {
				copy(y[(mFull+j)*ldy+p*PanelRows:][:nr], tile[j*PanelRows:][:nr])
			}
		}
	}
}
