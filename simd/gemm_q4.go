package simd

import (
	"fmt"
)

// Q4Block is the quantization block length of Q4Matrix: one scale per
// (weight row, 32 inputs), as Q4_0, and the activations' block (Q8Input).
const Q4Block = 32

// q4Record is the packed bytes of one (panel, block): 16 rows × 32 codes of
// 4 bits; q4ScaleBytes the block's 16 bf16 scales.
const (
	q4Record     = PanelRows * Q4Block / 2
	q4ScaleBytes = 2 * PanelRows
)

// Q4Levels is a 4-bit codebook: code c (0..15) stands for the weight
// Levels[c]·ws, where ws is the block's scale. Levels are in [-127, 127]
// and ascending (the quantizer picks the nearest).
type Q4Levels [16]int8

// Q4Uniform is the evenly spaced codebook of Q4_0 (-8..7, here ×15 so the
// levels use the int8 range the kernels multiply in).
var Q4Uniform = Q4Levels{-120, -105, -90, -75, -60, -45, -30, -15, 0, 15, 30, 45, 60, 75, 90, 105}

// Q4NonUniform is a codebook denser near zero, where most of a block's
// (Hadamard-rotated, roughly Gaussian) weights are: the IQ4_NL levels of
// llama.cpp, clipped to ±127.
var Q4NonUniform = Q4Levels{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// Q4Matrix holds W (rows×cols, PyTorch [out, in] layout, y = x·Wᵀ) as
// 4-bit codes into a 16-level codebook with one bf16 scale per (row, block
// of Q4Block inputs), packed at construction into the order the kernels
// stream: about 4.5 bits per weight against Q8Matrix's 8.5.
//
// Layout: rows are padded to a multiple of PanelRows and cols to a multiple
// of Q4Block. Panel p holds rows [16p, 16p+16): first, per block b, 4
// vectors of 64 bytes (vector s: row j's bytes 4j..4j+3; byte i's low
// nibble is the code of input 8s+i of the block, its high nibble that of
// input 8s+4+i), then the panel's scales, per block 16 bf16 values (row
// order). Panels follow each other: one sequential stream per pass.
type Q4Matrix struct {
	rows, cols int
	nb         int // blocks per row
	panels     int
	panelBytes int // nb * (q4Record + q4ScaleBytes)
	levels     Q4Levels
	// tab holds the codebook for the kernels: [0:16] levels+128 (unsigned,
	// VPDPBUSD's operand), [16:32] the levels (signed).
	tab  [32]byte
	data []byte
}

// NewQ4MatrixFrom returns the matrix whose packed bytes are data (as Data
// returns them, laid out as Q4Matrix describes) with the given dimensions
// and codebook: the constructor for already prepared weights (a cache). It
// refuses dimensions that do not match len(data) and a codebook outside
// [-127, 127]; data is used as it is (not copied), so it must not change.
func NewQ4MatrixFrom(rows, cols int, levels Q4Levels, data []byte) (*Q4Matrix, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("simd: NewQ4MatrixFrom: rows %d, cols %d: both must be ≥ 1", rows, cols)
	}
	m := newQ4Shape(rows, cols, levels)
	if want := m.panels * m.panelBytes; len(data) != want {
		return nil, fmt.Errorf("simd: NewQ4MatrixFrom(%d×%d): %d bytes, want %d", rows, cols, len(data), want)
	}
	for c, v := range levels {
		if v < -127 {
			return nil, fmt.Errorf("simd: NewQ4MatrixFrom: level[%d] = %d outside [-127, 127]", c, v)
		}
	}
	m.data = data
	return m, nil
}

// newQ4Shape returns a matrix with its dimensions and codebook set and no data.
func newQ4Shape(rows, cols int, levels Q4Levels) *Q4Matrix {
	m := &Q4Matrix{rows: rows, cols: cols, levels: levels}
	m.nb = (cols + Q4Block - 1) / Q4Block
	m.panels = (rows + PanelRows - 1) / PanelRows
	m.panelBytes = m.nb * (q4Record + q4ScaleBytes)
	for c, v := range levels {
		m.tab[c] = byte(int(v) + 128)
		m.tab[16+c] = byte(v)
	}
	return m
}

// Rows returns the number of output rows (out features).
func (w *Q4Matrix) Rows() int { return w.rows }

// Cols returns the number of input columns (in features).
func (w *Q4Matrix) Cols() int { return w.cols }

// Levels returns the codebook.
func (w *Q4Matrix) Levels() Q4Levels { return w.levels }

// Data returns the packed codes and scales (the layout Q4Matrix describes),
// for a cache to store; NewQ4MatrixFrom rebuilds the matrix from them. The
// caller must not modify them.
func (w *Q4Matrix) Data() []byte { return w.data }

// Bytes returns the bytes one full pass of GemmQ4 reads from the matrix.
func (w *Q4Matrix) Bytes() int { return len(w.data) }

// Clone returns an independent copy of w (same packed bytes), as
// Q8Matrix.Clone.
func (w *Q4Matrix) Clone() *Q4Matrix {
	c := *w
	c.data = alignedBytes(len(w.data))
	copy(c.data, w.data)
	return &c
}

// q4At returns the level and the scale of row r, column k (both in range).
func (w *Q4Matrix) q4At(r, k int) (lv int32, ws float32) {
	p, j := r/PanelRows, r%PanelRows
	b, kk := k/Q4Block, k%Q4Block
	pd := w.data[p*w.panelBytes:]
	s, half, i := kk/8, (kk/4)&1, kk&3
	c := pd[b*q4Record+s*64+4*j+i] >> (4 * half) & 15
	ws = bf16At(pd[w.nb*q4Record+b*q4ScaleBytes+2*j:])
	return int32(w.levels[c]), ws
}

// Dequantize writes level·ws for every weight into dst (rows×cols,
// row-major), for tests and parity measurements.
func (w *Q4Matrix) Dequantize(dst []float32) {
	if len(dst) < w.rows*w.cols {
		panic(fmt.Sprintf("simd: Q4Matrix.Dequantize: len(dst) %d < rows×cols %d", len(dst), w.rows*w.cols))
	}
	for r := 0; r < w.rows; r++ {
		for k := 0; k < w.cols; k++ {
			lv, s := w.q4At(r, k)
			dst[r*w.cols+k] = float32(lv) * s
		}
	}
}
