package simd

import (
	"fmt"
	"math"
)

// q4Fits are the scales QuantizeQ4 tries per block, as fractions of the
// scale that maps the block's largest magnitude onto the codebook's end
// level: below 1 the largest weights clip to the end level, and the rest
// get finer steps. Each candidate's codes are then refitted (least squares)
// and the candidate with the smallest squared error wins.
var q4Fits = [...]float64{1, 0.95, 0.9, 0.85, 0.8, 0.75}

// QuantizeQ4 quantizes w (rows×cols, row-major, PyTorch [out, in]) to 4-bit
// codes into levels, one bf16 scale per (row, block of Q4Block inputs), and
// packs it for the kernels. Per block it picks the scale minimising the
// block's squared error among a few candidates (q4Fits, each refitted by
// least squares on its codes), rounds it to bf16, and codes each weight to
// the level nearest to w/scale. It refuses bad dimensions, a length
// mismatch, a codebook that is not ascending in [-127, 127], and NaN or
// ±Inf weights (naming the row and column). Blocks are quantized on up to
// GOMAXPROCS goroutines (a load-time cost, not a per-token one).
func QuantizeQ4(w []float32, rows, cols int, levels Q4Levels) (*Q4Matrix, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("simd: QuantizeQ4: rows %d, cols %d: both must be ≥ 1", rows, cols)
	}
	if len(w) != rows*cols {
		return nil, fmt.Errorf("simd: QuantizeQ4: len(w) %d, want rows×cols = %d×%d = %d", len(w), rows, cols, rows*cols)
	}
	for c := range levels {
		if levels[c] < -127 || (c > 0 && levels[c] <= levels[c-1]) {
			return nil, fmt.Errorf("simd: QuantizeQ4: codebook %v: levels must ascend within [-127, 127] (level[%d] = %d)", levels, c, levels[c])
		}
	}
	if i := firstNonFinite(w); i >= 0 {
		return nil, fmt.Errorf("simd: QuantizeQ4: w[row %d, col %d] = %v", i/cols, i%cols, w[i])
	}
	m := newQ4Shape(rows, cols, levels)
	m.data = alignedBytes(m.panels * m.panelBytes)
	q := newQ4Quantizer(levels)
	parallelRanges(m.panels, 8, func(p0, p1 int) {
		for p := p0; p < p1; p++ {
			q.panel(m, w, p)
		}
	})
	return m, nil
}

// q4Quantizer holds a codebook's lookup tables (read-only once built).
type q4Quantizer struct {
	lv     [16]float64
	mid    [16]float64 // mid[c]: halfway between levels c and c+1 (mid[15] = +Inf)
	lo, hi float64     // the end levels' magnitudes
	// cell[i] is the code nearest to t = i/q4Cells − 128 (the lower end of
	// cell i): the code of any t in the cell is it or the next one, since no
	// two midpoints are closer than a cell.
	cell [256 * q4Cells]uint8
}

// q4Cells is the number of lookup cells per unit of w/s.
const q4Cells = 4

func newQ4Quantizer(levels Q4Levels) *q4Quantizer {
	q := &q4Quantizer{}
	for c, v := range levels {
		q.lv[c] = float64(v)
	}
	for c := 0; c < 15; c++ {
		q.mid[c] = (q.lv[c] + q.lv[c+1]) / 2
	}
	q.mid[15] = math.Inf(1)
	for i := range q.cell {
		q.cell[i] = q.search(float64(i)/q4Cells - 128)
	}
	q.lo, q.hi = -q.lv[0], q.lv[15]
	return q
}

// code returns the code of the level nearest to v·inv (ties to the lower):
// the number of midpoints below it, from the lookup cell and one compare.
func (q *q4Quantizer) code(v, inv float64) uint8 {
	t := v * inv
	i := int(math.Floor((t + 128) * q4Cells))
	if i < 0 {
		return 0
	}
	if i >= len(q.cell) {
		return 15
	}
	c := q.cell[i]
	if q.mid[c] < t {
		c++
	}
	return c
}

// search returns the number of midpoints below t, by binary search.
func (q *q4Quantizer) search(t float64) uint8 {
	c := 0
	for step := 8; step > 0; step /= 2 {
		if q.mid[c+step-1] < t {
			c += step
		}
	}
	return uint8(c)
}

// panel quantizes and packs panel p of m from w.
func (q *q4Quantizer) panel(m *Q4Matrix, w []float32, p int) {
	pd := m.data[p*m.panelBytes : (p+1)*m.panelBytes]
	var seg [Q4Block]float64
	var codes [Q4Block]uint8
	for j := 0; j < PanelRows; j++ {
		r := p*PanelRows + j
		if r >= m.rows {
			break // padding rows: codes 0, scale 0
		}
		row := w[r*m.cols : (r+1)*m.cols]
		for b := 0; b < m.nb; b++ {
			k0, k1 := b*Q4Block, min((b+1)*Q4Block, m.cols)
			n := k1 - k0
			for k := 0; k < n; k++ {
				seg[k] = float64(row[k0+k])
			}
			s := q.block(seg[:n], codes[:n])
			sb := F32ToBF16(float32(s))
			s = float64(bf16Value(sb))
			if s != 0 {
				inv := 1 / s
				for k := 0; k < n; k++ {
					codes[k] = q.code(seg[k], inv)
				}
			} else {
				for k := 0; k < n; k++ {
					codes[k] = q.code(0, 1)
				}
			}
			for k := n; k < Q4Block; k++ {
				codes[k] = 0 // padding inputs meet zero activations
			}
			rec := pd[b*q4Record:]
			for k := 0; k < Q4Block; k++ {
				s8, half, i := k/8, (k/4)&1, k&3
				rec[s8*64+4*j+i] |= codes[k] << (4 * half)
			}
			sc := pd[m.nb*q4Record+b*q4ScaleBytes+2*j:]
			putBF16(sc, sb)
		}
	}
}

// block returns the scale minimising Σ (v − s·level(code))² over seg among
// the candidates q4Fits (codes are scratch).
func (q *q4Quantizer) block(seg []float64, codes []uint8) float64 {
	amax, neg := 0.0, false
	for _, v := range seg {
		if a := math.Abs(v); a > amax {
			amax, neg = a, v < 0
		}
	}
	if amax == 0 {
		return 0
	}
	end := q.hi
	if neg {
		end = q.lo
	}
	best, bestErr := amax/end, math.Inf(1)
	for _, f := range q4Fits {
		s := amax / end / f
		inv := 1 / s
		var wl, ll, ww float64
		for k, v := range seg {
			c := q.code(v, inv)
			codes[k] = c
			l := q.lv[c]
			wl += v * l
			ll += l * l
			ww += v * v
		}
		if ll == 0 || wl <= 0 {
			continue
		}
		// The least-squares scale for these codes and its error.
		if e := ww - wl*wl/ll; e < bestErr {
			best, bestErr = wl/ll, e
		}
	}
	return best
}
