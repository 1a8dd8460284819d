package simd

import (
	"fmt"
	"unsafe"
)

// F32Matrix holds W (rows×cols, PyTorch [out, in] layout, y = x·Wᵀ) in
// fp32, packed into panels of PanelRows rows: for each input k, the 16 rows'
// weights w[16p+j][k] are 64 contiguous bytes, panel after panel, so a pass
// reads one sequential stream (rows are padded with zeros to a multiple of
// 16). bf16 checkpoints convert exactly with BF16ToF32.
type F32Matrix struct {
	rows, cols int
	panels     int
	data       []float32
}

// NewF32Matrix packs w (rows×cols, row-major). It refuses bad dimensions, a
// length mismatch and NaN or ±Inf weights, naming the row and column.
func NewF32Matrix(w []float32, rows, cols int) (*F32Matrix, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("simd: NewF32Matrix: rows %d, cols %d: both must be ≥ 1", rows, cols)
	}
	if len(w) != rows*cols {
		return nil, fmt.Errorf("simd: NewF32Matrix: len(w) %d, want rows×cols = %d×%d = %d", len(w), rows, cols, rows*cols)
	}
	if i := firstNonFinite(w); i >= 0 {
		return nil, fmt.Errorf("simd: NewF32Matrix: w[row %d, col %d] = %v", i/cols, i%cols, w[i])
	}
	m := &F32Matrix{rows: rows, cols: cols, panels: (rows + PanelRows - 1) / PanelRows}
	m.data = alignedF32(m.panels * PanelRows * cols)
	parallelRanges(m.panels, 4, func(p0, p1 int) {
		for r := p0 * PanelRows; r < min(p1*PanelRows, rows); r++ {
			p, j := r/PanelRows, r%PanelRows
			pd := m.data[p*PanelRows*cols:]
			for k, v := range w[r*cols : (r+1)*cols] {
				pd[k*PanelRows+j] = v
			}
		}
	})
	return m, nil
}

func alignedF32(n int) []float32 {
	b := alignedBytes(4 * n)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Rows returns the number of output rows.
func (w *F32Matrix) Rows() int { return w.rows }

// Cols returns the number of inputs.
func (w *F32Matrix) Cols() int { return w.cols }

// Bytes returns the bytes one pass of GemmF32 reads (padding included).
func (w *F32Matrix) Bytes() int { return 4 * len(w.data) }

// Clone returns an independent copy of w.
func (w *F32Matrix) Clone() *F32Matrix {
	c := *w
	c.data = alignedF32(len(w.data))
	copy(c.data, w.data)
	return &c
}

// At returns w[r][k].
func (w *F32Matrix) At(r, k int) float32 {
	return w.data[(r/PanelRows)*PanelRows*w.cols+k*PanelRows+r%PanelRows]
}

// GemmF32 computes, single-threaded, for i < m and every output row r,
//
//	y[i*w.Rows()+r] = Σ_k x[i*w.Cols()+k] · W[r][k]
//
// in float32. The levels sum in different orders (the assembly uses FMA and
// several partial sums), so they agree to float32 rounding: |Δ| ≤
// (cols+2)·2⁻²³·Σ_k |x·w|, not bit for bit. m may be any size ≥ 1.
func GemmF32(y, x []float32, m int, w *F32Matrix) {
	GemmF32Rows(y, x, m, w, 0, w.rows)
}

// GemmF32Rows is GemmF32 for output rows [r0, r1) only; r0 and r1 must be
// multiples of PanelRows, or r1 == w.Rows(). A split computes exactly the
// same bits as the whole.
func GemmF32Rows(y, x []float32, m int, w *F32Matrix, r0, r1 int) {
	checkF32(y, x, m, w, r0, r1)
	if r0 == r1 {
		return
	}
	gemmF32Range(active, y, x, m, w, r0/PanelRows, r1)
}

func checkF32(y, x []float32, m int, w *F32Matrix, r0, r1 int) {
	if m < 1 {
		panic(fmt.Sprintf("simd: GemmF32: m %d < 1", m))
	}
	if len(x) < m*w.cols {
		panic(fmt.Sprintf("simd: GemmF32(%dx%dx%d): len(x) %d < %d", m, w.cols, w.rows, len(x), m*w.cols))
	}
	if len(y) < m*w.rows {
		panic(fmt.Sprintf("simd: GemmF32(%dx%dx%d): len(y) %d < %d", m, w.cols, w.rows, len(y), m*w.rows))
	}
	checkRows("GemmF32", w.rows, r0, r1)
}

const (
	f32ChunkBytes  = 128 << 10
	f32StreamBytes = 512 << 10
)

func f32Group(l Level, m int) int {
	maxG := 8
	if l == AVX2 {
		maxG = 4
	}
	for g := maxG; g > 1; g /= 2 {
		if m >= g {
			return g
		}
	}
	return 1
}

func gemmF32Range(l Level, y, x []float32, m int, w *F32Matrix, p0, r1 int) {
	rows, cols := w.rows, w.cols
	pb := PanelRows * cols // floats per panel
	pFull := r1 / PanelRows
	chunk := f32StreamBytes / (4 * pb)
	if f32Group(l, m) < m {
		chunk = f32ChunkBytes / (4 * pb)
	}
	chunk = max(chunk, 1)
	for pc := p0; pc < pFull; pc += chunk {
		n := min(chunk, pFull-pc)
		for i0 := 0; i0 < m; {
			g := f32Group(l, m-i0)
			f32Kernel(l, g, y[i0*rows+pc*PanelRows:], rows, x[i0*cols:], cols, w.data[pc*pb:], n)
			i0 += g
		}
	}
	if pFull*PanelRows < r1 {
		var tile [8 * PanelRows]float32
		nr := r1 - pFull*PanelRows
		for i0 := 0; i0 < m; {
			g := f32Group(l, m-i0)
			f32Kernel(l, g, tile[:], PanelRows, x[i0*cols:], cols, w.data[pFull*pb:], 1)
			for j := 0; j < g; j++ {
				copy(y[(i0+j)*rows+pFull*PanelRows:][:nr], tile[j*PanelRows:][:nr])
			}
			i0 += g
		}
	}
}

// f32Kernel computes g input rows (x, row stride cols) against np panels
// from wd, 16 outputs per panel per row into y (row stride ldy).
func f32Kernel(l Level, g int, y []float32, ldy int, x []float32, cols int, wd []float32, np int) {
	if l == Generic || !haveAsm {
		gemmF32Generic(y, ldy, x, cols, g, wd, np)
		return
	}
	_ = y[(g-1)*ldy+np*PanelRows-1]
	_ = x[(g-1)*cols+cols-1]
	_ = wd[np*PanelRows*cols-1]
	yp, xp, wp := unsafe.Pointer(&y[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&wd[0])
	ldyB, ldx := 4*ldy, 4*cols
	switch l {
	case AVX512VNNI:
		switch g {
		case 8:
			gemmF32x8AVX512(yp, ldyB, xp, ldx, wp, cols, np)
		case 4:
			gemmF32x4AVX512(yp, ldyB, xp, ldx, wp, cols, np)
		case 2:
			gemmF32x2AVX512(yp, ldyB, xp, ldx, wp, cols, np)
		default:
			gemmF32x1AVX512(yp, ldyB, xp, ldx, wp, cols, np)
		}
	case AVX2:
		switch g {
		case 4:
			gemmF32x4AVX2(yp, ldyB, xp, ldx, wp, cols, np)
		case 2:
			gemmF32x2AVX2(yp, ldyB, xp, ldx, wp, cols, np)
		default:
			gemmF32x1AVX2(yp, ldyB, xp, ldx, wp, cols, np)
		}
	default:
		panic("omni: BUG: gemmF32 at level " + l.String())
	}
}
