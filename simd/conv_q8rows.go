package simd

import (
	"fmt"
	"math"
	"unsafe"
)

// The int8 convolutions (NewConv/NewConvTranspose "int8"): weights as int8
// with one scale per output and tap, each conv input row quantized to int8
// on its own with one scale, products summed exactly in int32 per tap
// (VPDPBUSD), each tap's sum scaled into an fp32 output. Per output o of
// an output row and tap j reading input row r:
//
//	acc_j = Σ_i qx[r][i] · qw[o][j][i]            (exact, int32)
//	v     = float32(acc_j) · (sx[r] · sw[o][j])   tap 0: rounded once
//	v     = fma(float32(acc_j), sx[r]·sw[o][j], v) later taps
//	y[o]  = (v + bias[o]) + y_old[o]              (bias, residual when asked)
//
// with every product and sum of scales rounded to float32 as written. A
// row's quantization depends on that row alone, int32 sums are exact, and
// the fp32 steps run in tap order, so any split of a stream into calls, or
// of a call's rows over threads or tiles, gives the same bits; the generic
// loop (q8ConvGeneric) is the definition the AVX-512 kernel matches bit
// for bit on finite inputs (a NaN or Inf activation gives garbage on both,
// not the same garbage; the codec's weights are checked finite at load).
//
// Quantization (weights per output and tap, activations per row): s =
// absmax/127, q = round-to-nearest-even(v · (127/absmax)) clamped to
// [-127, 127]; a block whose absmax is below q8Tiny has s = 0 and q = 0.
// Activations are stored unsigned, u = q + 128, for VPDPBUSD (u8 × s8);
// the 128·Σ_i qw of each output and tap is subtracted by starting the tap's
// sum at its negative (corr).

// q8Tiny is the absmax below which a row or weight block quantizes to zero:
// a conservative bound, far above where 127/absmax would overflow float32.
const q8Tiny = 1e-30

// q8MaxTapInputs bounds a tap's inputs: its int32 sum starts at corr
// (|corr| ≤ 128·127·in) and adds u·w (u ≤ 255, |w| ≤ 127), so every
// partial sum stays below 48641·in < 2³¹.
const q8MaxTapInputs = 32768

// q8Conv is a conv GEMM weight W' (out rows × taps·in inputs, taps outer)
// in int8 for the row kernel.
type q8Conv struct {
	out, in, taps int
	inP           int // in rounded up to a multiple of 4 (zero weights)
	panels        int // ceil(out/16)
	// w: panel-major; in a panel, tap-major; in a tap, inP/4 groups of 64
	// bytes: output o's four weights of inputs 4g..4g+3 at bytes 4o..4o+3.
	w []int8
	// meta: tap-major; per tap and panel 32 words: the 16 outputs' corr
	// (int32 bits: −128·Σ_i qw) then their scales sw (float32).
	meta []uint32
}

// q8RowStride returns the bytes a quantized input row of in values takes:
// the inputs padded to a multiple of 4 (with zeros, stored as 128), then
// the row's scale (float32).
func q8RowStride(in int) int { return (in+3)/4*4 + 4 }

// newQ8Conv quantizes W' (rows×cols row-major, cols = taps·in) per output
// and tap and packs it.
func newQ8Conv(wp []float32, rows, cols, taps int) (*q8Conv, error) {
	if rows < 1 || taps < 1 || cols < taps || cols%taps != 0 || len(wp) != rows*cols {
		return nil, fmt.Errorf("simd: int8 conv weights %d×%d in %d taps given %d values", rows, cols, taps, len(wp))
	}
	in := cols / taps
	if in > q8MaxTapInputs {
		return nil, fmt.Errorf("simd: int8 conv of %d inputs per tap: at most %d (a tap's int32 sum must not wrap)", in, q8MaxTapInputs)
	}
	c := &q8Conv{out: rows, in: in, taps: taps, inP: (in + 3) / 4 * 4, panels: (rows + PanelRows - 1) / PanelRows}
	pb := taps * c.inP * PanelRows
	c.w = make([]int8, c.panels*pb)
	c.meta = make([]uint32, taps*c.panels*32)
	for o := 0; o < rows; o++ {
		p, j16 := o/PanelRows, o%PanelRows
		for j := 0; j < taps; j++ {
			src := wp[o*cols+j*in : o*cols+(j+1)*in]
			s, inv := q8Scale(absMax(src))
			dst := c.w[p*pb+j*c.inP*PanelRows:]
			sum := int32(0)
			for i, v := range src {
				q := q8Round(v, inv)
				dst[(i/4)*64+4*j16+i%4] = q
				sum += int32(q)
			}
			m := c.meta[(j*c.panels+p)*32:]
			m[j16] = uint32(-128 * sum)
			m[16+j16] = math.Float32bits(s)
		}
	}
	return c, nil
}

// bytes returns the bytes the packed weights occupy.
func (c *q8Conv) bytes() int { return len(c.w) + 4*len(c.meta) }

// absMax returns max |v| over v.
func absMax(v []float32) float32 {
	m := float32(0)
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a > m {
			m = a
		}
	}
	return m
}

// q8Scale returns the scale absmax/127 and the factor 127/absmax of a
// block, both 0 below q8Tiny.
func q8Scale(amax float32) (s, inv float32) {
	if !(amax >= q8Tiny) {
		return 0, 0
	}
	return amax / 127, 127 / amax
}

// q8Round returns v·inv rounded to the nearest integer (ties to even, as
// VCVTPS2DQ) and clamped to [-127, 127].
func q8Round(v, inv float32) int8 {
	p := float32(v * inv)
	q := math.RoundToEven(float64(p))
	return int8(max(-127, min(127, q)))
}

// quantizeRowsQ8 quantizes n rows of in values (row r at src[r*ldx:])
// into dst, row r at dst[r*q8RowStride(in):]: inP bytes u = q + 128, then
// the scale.
func quantizeRowsQ8(l Level, dst []byte, src []float32, n, in, ldx int) {
	S := q8RowStride(in)
	if n < 1 {
		return
	}
	_ = dst[(n-1)*S+S-1]
	_ = src[(n-1)*ldx+in-1]
	if q8Asm(l) && in%16 == 0 {
		quantQ8RowsAVX512(&dst[0], &src[0], n, in, 4*ldx, S)
		return
	}
	for r := 0; r < n; r++ {
		x := src[r*ldx : r*ldx+in]
		d := dst[r*S : (r+1)*S]
		s, inv := q8Scale(absMax(x))
		for i, v := range x {
			d[i] = byte(int(q8Round(v, inv)) + 128)
		}
		for i := in; i < S-4; i++ {
			d[i] = 128
		}
		putF32(d[S-4:], s)
	}
}

// q8Asm reports whether the int8 convs run the AVX-512 VNNI kernels at
// level l.
func q8Asm(l Level) bool { return haveAsm && l == AVX512VNNI }

// q8Job is a row list of the int8 conv kernel: output row r is
// y[yo[r]:][:out], its tap j reads the quantized row at xq[xo[r]+j·ts:].
// Lists are padded to a multiple of 6 with the last row again.
type q8Job struct {
	y      []float32
	xq     []byte
	yo, xo []int
	ts     int // bytes from one tap's row to the next
	bias   []float32
	add    bool // add the outputs to y (taps = 1 only)
	// yp, xp: the rows as pointers, for the kernel (pointers fills them)
	yp, xp []uintptr
}

// reset makes j a new job on y and xq (its row lists' arrays kept).
func (j *q8Job) reset(y []float32, xq []byte, ts int, bias []float32, add bool) {
	*j = q8Job{y: y, xq: xq, ts: ts, bias: bias, add: add, yo: j.yo, xo: j.xo, yp: j.yp, xp: j.xp}
}

// list lists segs segments of n output rows: segment s's row r writes
// y[(s·n+r)·ldy:] and reads (its first tap) quantized row s·segRows+r, rows
// S bytes apart in xq; padded to a multiple of 6 with the last row again.
func (j *q8Job) list(n, segs, ldy, segRows, S int) {
	total := n * segs
	g := (total + 5) / 6 * 6
	j.yo, j.xo = resized(j.yo, g), resized(j.xo, g)
	for s := 0; s < segs; s++ {
		for r := 0; r < n; r++ {
			j.yo[s*n+r], j.xo[s*n+r] = (s*n+r)*ldy, (s*segRows+r)*S
		}
	}
	for r := total; r < g; r++ {
		j.yo[r], j.xo[r] = j.yo[total-1], j.xo[total-1]
	}
}

// run runs the whole job on this thread.
func (j *q8Job) run(l Level, c *q8Conv) {
	j.prepare(l, c)
	q8ConvRun(l, c, j, 0, len(j.yo), 0, c.panels)
}

// prepare checks that every byte the kernel will touch lies in y and xq
// and, where the AVX-512 kernel runs, fills yp and xp from the offsets.
func (j *q8Job) prepare(l Level, c *q8Conv) {
	if j.add && c.taps != 1 {
		panic("omni: BUG: a residual add fused into a tapped int8 conv")
	}
	n := len(j.yo)
	span := (c.taps-1)*j.ts + c.inP + 4
	for r := range n {
		if j.yo[r] < 0 || j.yo[r]+c.out > len(j.y) || j.xo[r] < 0 || j.xo[r]+span > len(j.xq) {
			panic("omni: BUG: int8 conv row outside its slices")
		}
	}
	if !q8ConvKernel(l, c) {
		return
	}
	j.yp, j.xp = resized(j.yp, n), resized(j.xp, n)
	for r := range n {
		j.yp[r] = uintptr(unsafe.Pointer(&j.y[j.yo[r]]))
		j.xp[r] = uintptr(unsafe.Pointer(&j.xq[j.xo[r]]))
	}
}

// q8ConvKernel reports whether c runs on the AVX-512 kernel at level l (whole
// panels of outputs; else the generic loop).
func q8ConvKernel(l Level, c *q8Conv) bool { return q8Asm(l) && c.out%PanelRows == 0 }

// q8ConvRun runs listed rows [r0, r1) (r0 a multiple of 6, r1 one too or
// the list's end) of a prepared job over output panels [p0, p1) of c.
func q8ConvRun(l Level, c *q8Conv, job *q8Job, r0, r1, p0, p1 int) {
	if !q8ConvKernel(l, c) {
		q8ConvGeneric(c, job, r0, r1, p0, p1)
		return
	}
	pb := c.taps * c.inP * PanelRows
	tg := c.inP / 4
	var bp unsafe.Pointer
	if job.bias != nil {
		bp = unsafe.Pointer(&job.bias[0])
	}
	ad := 0
	if job.add {
		ad = 1
	}
	chunk := max(4, q8ConvChunkBytes/pb/4*4)
	for pc := p0; pc < p1; pc += chunk {
		np := min(chunk, p1-pc)
		w := unsafe.Pointer(&c.w[pc*pb])
		meta := unsafe.Pointer(&c.meta[pc*32])
		for g := r0; g < r1; g += 6 {
			q8Conv6RowsAVX512(&job.yp[g], &job.xp[g], w, meta, np, pb, 4*PanelRows*pc, 128*c.panels, c.taps, tg, job.ts-c.inP, bp, ad)
		}
	}
}

// q8ConvChunkBytes bounds the weight panels the kernel runs through every
// row group before moving on (they stay in L2 across the groups).
const q8ConvChunkBytes = 128 << 10

// q8ConvGeneric is the definition of the int8 conv (see the top of this
// file) over output panels [p0, p1) of c for the job's rows.
func q8ConvGeneric(c *q8Conv, job *q8Job, r0, r1, p0, p1 int) {
	pb := c.taps * c.inP * PanelRows
	S := c.inP
	for r := r0; r < min(r1, len(job.yo)); r++ {
		if r > 0 && job.yo[r] == job.yo[r-1] && job.xo[r] == job.xo[r-1] {
			continue // a padding row
		}
		y := job.y[job.yo[r]:][:c.out]
		for p := p0; p < p1; p++ {
			for o := p * PanelRows; o < min(c.out, (p+1)*PanelRows); o++ {
				j16 := o % PanelRows
				var v float32
				for j := 0; j < c.taps; j++ {
					xr := job.xq[job.xo[r]+j*job.ts:][:S+4]
					sx := getF32(xr[S:])
					m := c.meta[(j*c.panels+p)*32:]
					acc := int32(m[j16])
					wq := c.w[p*pb+j*S*PanelRows:]
					for i := 0; i < S; i++ {
						acc += int32(xr[i]) * int32(wq[(i/4)*64+4*j16+i%4])
					}
					f := float32(acc)
					sc := float32(sx * math.Float32frombits(m[16+j16]))
					if j == 0 {
						v = float32(f * sc)
					} else {
						v = fma32(f, sc, v)
					}
				}
				if job.bias != nil {
					v = float32(v + job.bias[o])
				}
				if job.add {
					v = float32(v + y[o])
				}
				y[o] = v
			}
		}
	}
}
