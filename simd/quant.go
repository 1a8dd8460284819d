package simd

import (
	"fmt"
	"math"
	"unsafe"
)

// DefaultBlock is the quantization block length BK along the input dimension:
// one scale per (weight row, BK inputs), stored as bf16, and one fp32 scale
// per (activation row, BK inputs).
//
// It is 32, decided on fidelity, at a measured speed cost of about 5 %.
// Fidelity (docs/PERF.md: a 0.6B-geometry code predictor with outlier channels,
// teacher-forced against fp32): blocks of 32 give max |Δlogit| 0.38 and mean
// KL 0.0013, blocks of 64 give 0.65 and 0.0021, with the same top-1 (0.971
// vs 0.975, inside the ±0.004 that summation order alone moves it). Speed:
// GEMV from DRAM is bandwidth-bound, so time follows bytes per weight,
// 1 + 4/BK with fp32 scales = 1.125 (BK 32) vs 1.0625 (BK 64), i.e. 5.9 %
// more bytes for 32.
// Measured with "omni bench kernels --block N" (1 GiB of 1024×3072 and
// 3072×1024 matrices, AVX-512 VNNI, medians of 5, two runs each, this
// 2-core machine): m=1 reads 10.4–11.8 GB/s at 1 thread and 20.0–21.5 GB/s
// at 2 for BK 32 against 11.2–12.3 and 20.6–21.3 for BK 64, i.e. 9.2–10.5
// vs 10.5–11.6 G weights/s at 1 thread and 17.8–19.1 vs 19.4–20.0 at 2;
// the m=8 / m=1 time ratio is 1.08–1.11 for BK 32 and 1.07–1.20 for BK 64
// (compute is not the limit at either). Both read at 0.85–1.05 of the
// streaming-read floor measured in the same run. Measured again in wave 3,
// session 10 (RATIONALE.md, "Why do model matrices keep blocks of 32?"):
// BK 64 made one stream 8 % faster end to end but took the outlier
// model's top-1 to 0.953 on one seed of three, too near the 0.95 bar.
// (The figures above are from fp32 weight scales; since wave 3, session 13
// the scales are bf16, 1 + 2/BK bytes a weight: RATIONALE.md, "Why do
// model matrices keep blocks of 32?")
const DefaultBlock = 32

// PanelRows is the number of output rows a packed panel holds: the kernels
// produce 16 outputs per weight stream, and GemmQ8Rows/GemmF32Rows split work
// at multiples of it.
const PanelRows = 16

// Q8Matrix holds W (rows×cols, PyTorch [out, in] layout, y = x·Wᵀ) as
// symmetric int8 with one bf16 scale per (row, block of BK inputs), packed at
// construction into the order the kernels stream.
//
// Quantization, per row r and block b: ws is absmax/127 rounded up to a
// bf16 (so no code exceeds 127.5 steps) and qw = round(w/ws) in [-127, 127],
// exactly for that ws (an all-zero block has ws = 0 and qw = 0). The weights
// are stored shifted to unsigned, uw = qw + 128, so that VPDPBUSD (u8 × s8)
// can take them as its unsigned operand.
//
// Layout: rows are padded to a multiple of PanelRows and cols to a multiple
// of BK. Panel p holds rows [16p, 16p+16); for each block b it stores BK/4
// groups of 64 bytes (group t: row j's uw for inputs 4t..4t+3 of the block at
// bytes 4j..4j+3), then the 16 bf16 scales ws[16p+j][b] (little-endian, 2
// bytes each). Panels follow each other, so one pass over the matrix reads
// one sequential stream of 1 + 2/BK bytes per weight.
type Q8Matrix struct {
	rows, cols, block int
	nb                int // blocks per row (cols rounded up to the block)
	panels            int
	panelBytes        int // nb * (16*block + 32)
	data              []byte
}

// q8BlockBytes is the size of one (panel, block) record: the codes, then
// the 16 bf16 scales.
func q8BlockBytes(block int) int { return PanelRows*block + 2*PanelRows }

// alignedBytes returns a zeroed n-byte slice whose first byte is 64-byte aligned.
func alignedBytes(n int) []byte {
	b := make([]byte, n+64)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & 63)
	return b[off : off+n : off+n]
}

// checkBlock reports whether block is a supported block length.
func checkBlock(block int) error {
	switch block {
	case 32, 64, 128:
		return nil
	}
	return fmt.Errorf("simd: block %d not 32, 64 or 128", block)
}

// quantScale returns the scale of a block whose largest magnitude is absmax:
// absmax/127 rounded to float32. Where that rounding is coarse (a subnormal
// scale) it is raised by ulps until absmax/scale ≤ 127.5, so every value
// still quantizes within half a step without clamping.
func quantScale(absmax float64) float32 {
	if absmax == 0 {
		return 0
	}
	s := float32(absmax / 127)
	for float64(s)*127.5 < absmax {
		s = math.Nextafter32(s, float32(math.Inf(1)))
	}
	return s
}

// quantRound returns round(v) (half away from zero) clamped to [-127, 127].
func quantRound(v float64) int32 {
	q := int32(math.Round(v))
	if q > 127 {
		q = 127
	} else if q < -127 {
		q = -127
	}
	return q
}

// QuantizeQ8 quantizes w (rows×cols, row-major, PyTorch [out, in]) into
// blocks of block inputs (32, 64 or 128) and packs it for the kernels.
// It refuses bad dimensions, a length mismatch, an unsupported block and
// NaN or ±Inf weights, naming the row and column.
func QuantizeQ8(w []float32, rows, cols, block int) (*Q8Matrix, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("simd: QuantizeQ8: rows %d, cols %d: both must be ≥ 1", rows, cols)
	}
	if len(w) != rows*cols {
		return nil, fmt.Errorf("simd: QuantizeQ8: len(w) %d, want rows×cols = %d×%d = %d", len(w), rows, cols, rows*cols)
	}
	if err := checkBlock(block); err != nil {
		return nil, fmt.Errorf("simd: QuantizeQ8: %w", err)
	}
	if i := firstNonFinite(w); i >= 0 {
		return nil, fmt.Errorf("simd: QuantizeQ8: w[row %d, col %d] = %v", i/cols, i%cols, w[i])
	}
	m := &Q8Matrix{rows: rows, cols: cols, block: block}
	m.nb = (cols + block - 1) / block
	m.panels = (rows + PanelRows - 1) / PanelRows
	bb := q8BlockBytes(block)
	m.panelBytes = m.nb * bb
	m.data = alignedBytes(m.panels * m.panelBytes)
	parallelRanges(m.panels, 4, func(p0, p1 int) { m.quantizePanels(w, p0, p1) })
	return m, nil
}

// quantizePanels quantizes and packs panels [p0, p1) of w into m.data.
func (m *Q8Matrix) quantizePanels(w []float32, p0, p1 int) {
	rows, cols, block := m.rows, m.cols, m.block
	bb := q8BlockBytes(block)
	part := m.data[p0*m.panelBytes : p1*m.panelBytes]
	for i := range part {
		part[i] = 128 // padding rows and columns hold qw = 0
	}
	for p := p0; p < p1; p++ {
		for b := 0; b < m.nb; b++ {
			rec := m.data[p*m.panelBytes+b*bb:][:bb]
			k0, k1 := b*block, min((b+1)*block, cols)
			for j := 0; j < PanelRows; j++ {
				r := p*PanelRows + j
				var ws uint16
				if r < rows {
					ws = quantizeBlockQ8(rec, w[r*cols+k0:r*cols+k1], j)
				}
				putBF16(rec[PanelRows*block+2*j:], ws)
			}
		}
	}
}

// quantizeBlockQ8 quantizes one block row x (finite values) into rec's
// lane j (byte (k/4)·64 + 4j + k%4 holds q + 128) and returns its scale's
// bf16 bits: q = quantRound(x/ws) with ws = bf16Up(quantScale(max |x|)),
// exactly. The quotient is taken as a product with the reciprocal, which
// is within a few ulps of x/ws; only where that lands near a rounding
// boundary (a half-integer) is the exact division redone.
func quantizeBlockQ8(rec []byte, x []float32, j int) uint16 {
	var amax uint32
	for _, v := range x {
		amax = max(amax, math.Float32bits(v)&0x7fffffff) // finite: bit order is value order
	}
	wb := bf16Up(quantScale(float64(math.Float32frombits(amax))))
	if wb == 0 {
		return 0
	}
	d := float64(bf16Value(wb))
	inv := 1 / d
	for k, v := range x {
		y := float64(v) * inv
		r := math.Round(y)
		if math.Abs(y-r) > 0.5-1e-9 {
			r = math.Round(float64(v) / d) // near a half-integer: the exact quotient decides
		}
		q := min(max(int32(r), -127), 127)
		rec[(k>>2)*64+4*j+k&3] = byte(q + 128)
	}
	return wb
}

func putF32(b []byte, v float32) {
	u := math.Float32bits(v)
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

func getF32(b []byte) float32 {
	_ = b[3]
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

// Rows returns the number of output rows (out features).
func (w *Q8Matrix) Rows() int { return w.rows }

// Cols returns the number of input columns (in features).
func (w *Q8Matrix) Cols() int { return w.cols }

// Block returns the quantization block length BK.
func (w *Q8Matrix) Block() int { return w.block }

// Bytes returns the bytes one full pass of GemmQ8 reads from the matrix:
// the packed weights and their scales, padding included.
func (w *Q8Matrix) Bytes() int { return len(w.data) }

// Clone returns an independent copy of w (same packed bytes).
func (w *Q8Matrix) Clone() *Q8Matrix {
	c := *w
	c.data = alignedBytes(len(w.data))
	copy(c.data, w.data)
	return &c
}

// q8At returns qw and ws for row r, column k (both in range).
func (w *Q8Matrix) q8At(r, k int) (qw int32, ws float32) {
	p, j := r/PanelRows, r%PanelRows
	b, kk := k/w.block, k%w.block
	rec := w.data[p*w.panelBytes+b*q8BlockBytes(w.block):]
	qw = int32(rec[(kk>>2)*64+4*j+kk&3]) - 128
	ws = bf16At(rec[PanelRows*w.block+2*j:])
	return qw, ws
}

// Dequantize writes qw·ws for every weight into dst (rows×cols, row-major),
// for tests and parity measurements.
func (w *Q8Matrix) Dequantize(dst []float32) {
	if len(dst) < w.rows*w.cols {
		panic(fmt.Sprintf("simd: Q8Matrix.Dequantize: len(dst) %d < rows×cols %d", len(dst), w.rows*w.cols))
	}
	for r := 0; r < w.rows; r++ {
		for k := 0; k < w.cols; k++ {
			q, s := w.q8At(r, k)
			dst[r*w.cols+k] = float32(q) * s
		}
	}
}

// Q8Input is a reusable buffer of up to maxM activation rows, each
// quantized per block of BK inputs to signed int8 with one fp32 scale
// (xs = absmax/127, qx = round(x/xs) in [-127, 127]).
//
// Layout, for m quantized rows: qx is grouped by 4 inputs, [k/4][row][k%4]
// (so the kernels broadcast 4 bytes per row and group); per block b the
// scales are stored as m float32 xs followed by m int32 -xsum128 =
// -128·Σ_k qx, the correction the unsigned-weight trick needs (the VNNI
// kernels start each block's sum there).
type Q8Input struct {
	maxM, cols, block int
	nb, colsP         int
	m                 int
	qx                []int8
	sc                []uint32 // [block][xs m | -xsum128 m]
}

// NewQ8Input returns a buffer for up to maxM rows of cols inputs quantized in
// blocks of block (32, 64 or 128). It panics on bad arguments (a programming
// error: the sizes come from the model config).
func NewQ8Input(maxM, cols, block int) *Q8Input {
	if maxM < 1 || cols < 1 {
		panic(fmt.Sprintf("simd: NewQ8Input: maxM %d, cols %d: both must be ≥ 1", maxM, cols))
	}
	if err := checkBlock(block); err != nil {
		panic("simd: NewQ8Input: " + err.Error())
	}
	q := &Q8Input{maxM: maxM, cols: cols, block: block}
	q.nb = (cols + block - 1) / block
	q.colsP = q.nb * block
	b := alignedBytes(maxM * q.colsP)
	q.qx = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
	q.sc = make([]uint32, 2*maxM*q.nb)
	return q
}

// M returns the number of rows of the last Quantize.
func (q *Q8Input) M() int { return q.m }

// MaxM returns the capacity in rows.
func (q *Q8Input) MaxM() int { return q.maxM }

// Cols returns the number of inputs per row.
func (q *Q8Input) Cols() int { return q.cols }

// Block returns the quantization block length.
func (q *Q8Input) Block() int { return q.block }

// Quantize quantizes x (m×cols, row-major) into q; it does not allocate.
// Non-finite inputs give unspecified (but memory-safe) results.
func (q *Q8Input) Quantize(x []float32, m int) {
	if m < 1 || m > q.maxM {
		panic(fmt.Sprintf("simd: Q8Input.Quantize: m %d outside [1, %d]", m, q.maxM))
	}
	if len(x) < m*q.cols {
		panic(fmt.Sprintf("simd: Q8Input.Quantize: len(x) %d < m×cols %d", len(x), m*q.cols))
	}
	q.m = m
	ld := 4 * m
	useAsm := haveAsm && (active == AVX512VNNI || active == AVX2)
	full := q.cols / q.block // blocks without padding
	for i := 0; i < m; i++ {
		row := x[i*q.cols : (i+1)*q.cols]
		for b := 0; b < q.nb; b++ {
			if useAsm && b < full {
				// The assembly does full blocks until one needs a subnormal scale.
				var n int
				if active == AVX512VNNI {
					n = quantizeQ8AVX512(unsafe.Pointer(&q.qx[b*q.block/4*ld+4*i]), ld,
						unsafe.Pointer(&q.sc[b*2*m+i]), 8*m, 4*m, unsafe.Pointer(&row[b*q.block]), full-b, q.block/16)
				} else {
					n = quantizeQ8AVX2(unsafe.Pointer(&q.qx[b*q.block/4*ld+4*i]), ld,
						unsafe.Pointer(&q.sc[b*2*m+i]), 8*m, 4*m, unsafe.Pointer(&row[b*q.block]), full-b, q.block/8)
				}
				if b += n; b >= q.nb {
					break
				}
			}
			k0, k1 := b*q.block, min((b+1)*q.block, q.cols)
			xs, sum := quantizeBlock(q.qx[(k0>>2)*ld+4*i:], ld, row[k0:k1], q.block)
			q.sc[b*2*m+i] = math.Float32bits(xs)
			q.sc[b*2*m+m+i] = uint32(-128 * sum)
		}
	}
}

// quantizeBlock quantizes one block of an activation row (seg, at most
// block values; the rest of the block is padding) into dst, 4 values per
// ld bytes, and returns its scale and Σ qx. The quotient v/xs is taken as
// v·(1/xs) in float32 and rounded half to even, so a value may land up to
// about 2⁻¹⁷·xs beyond half a step from v; the kernels see only qx and xs.
func quantizeBlock(dst []int8, ld int, seg []float32, block int) (float32, int32) {
	var amax uint32 // |v| compared as bits: the same order for non-NaN values
	for _, v := range seg {
		amax = max(amax, math.Float32bits(v)&^(1<<31))
	}
	xs := quantScale(float64(math.Float32frombits(amax)))
	if xs == 0 {
		for t := 0; t < block/4; t++ {
			*(*uint32)(unsafe.Pointer(&dst[t*ld])) = 0
		}
		return 0, 0
	}
	inv := float32(1 / float64(xs))
	var sum int32
	t := 0
	if math.IsInf(float64(inv), 0) { // a subnormal scale: divide exactly instead
		for ; 4*t < len(seg); t++ {
			var word uint32
			for u := 0; u < 4 && 4*t+u < len(seg); u++ {
				qv := quantRound(float64(seg[4*t+u]) / float64(xs))
				sum += qv
				word |= uint32(uint8(qv)) << (8 * u)
			}
			*(*uint32)(unsafe.Pointer(&dst[t*ld])) = word
		}
		for ; t < block/4; t++ {
			*(*uint32)(unsafe.Pointer(&dst[t*ld])) = 0
		}
		return xs, sum
	}
	for ; 4*t+4 <= len(seg); t++ {
		v := seg[4*t : 4*t+4]
		q0, q1, q2, q3 := roundQ(v[0]*inv), roundQ(v[1]*inv), roundQ(v[2]*inv), roundQ(v[3]*inv)
		sum += q0 + q1 + q2 + q3
		*(*uint32)(unsafe.Pointer(&dst[t*ld])) = uint32(uint8(q0)) | uint32(uint8(q1))<<8 | uint32(uint8(q2))<<16 | uint32(uint8(q3))<<24
	}
	if r := len(seg) - 4*t; r > 0 { // a partial group of 4, zero-padded
		var word uint32
		for u := 0; u < r; u++ {
			qv := roundQ(seg[4*t+u] * inv)
			sum += qv
			word |= uint32(uint8(qv)) << (8 * u)
		}
		*(*uint32)(unsafe.Pointer(&dst[t*ld])) = word
		t++
	}
	for ; t < block/4; t++ {
		*(*uint32)(unsafe.Pointer(&dst[t*ld])) = 0
	}
	return xs, sum
}

// roundQ rounds v (|v| ≤ 2²²) half to even and clamps it to [-127, 127],
// with the 1.5·2²³ trick: the float32 sum's low mantissa bits hold round(v).
func roundQ(v float32) int32 {
	f := float32(v + 12582912)
	q := int32(math.Float32bits(f)&0x7fffff) - 0x400000
	return min(max(q, -127), 127)
}

// Row returns row i of the last Quantize dequantized (qx·xs) into dst
// (len cols), for tests and parity measurements.
func (q *Q8Input) Row(dst []float32, i int) {
	if i < 0 || i >= q.m || len(dst) < q.cols {
		panic(fmt.Sprintf("simd: Q8Input.Row(%d): m %d, len(dst) %d, cols %d", i, q.m, len(dst), q.cols))
	}
	for k := 0; k < q.cols; k++ {
		qx, xs := q.at(i, k)
		dst[k] = float32(qx) * xs
	}
}

// at returns qx and xs of row i, input k.
func (q *Q8Input) at(i, k int) (int32, float32) {
	ld := 4 * q.m
	b := k / q.block
	return int32(q.qx[(k>>2)*ld+4*i+k&3]), math.Float32frombits(q.sc[b*2*q.m+i])
}
