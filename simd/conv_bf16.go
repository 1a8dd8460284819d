package simd

import (
	"fmt"
	"math"
)

// The bf16-storage convolutions: the conv GEMM's W' (conv.go) rounded to
// bfloat16 (round to nearest even, as PyTorch's .to(torch.bfloat16)) and
// stored in half the bytes, converted back to fp32 in the kernel and
// summed with fused multiply-adds in fp32, each output in input order in
// one accumulator. A bf16 value is a float32 with its low 16 bits zero, so
// the conversion is exact and the only loss is the weights' rounding (8
// significant bits). Layout: panels of PanelRows outputs as F32Matrix, per
// input 16 values as 8 pairs, pair i = (w[i], w[8+i]): a 32-byte load gives
// outputs 0–7 in the high halves of its dwords after a shift left by 16 and
// outputs 8–15 after a mask. Every level computes the same bits: the
// generic loop rounds each fused multiply-add once, as the FMA instruction
// does (fma32). bf16 weights go through the AVX2 row-list kernels at the
// AVX2 level and at AVX-512 on a CPU without AVX512_BF16, the generic loop
// at the generic level; AVX-512 with AVX512_BF16 computes in bf16 instead
// (bf16dot.go: other bits, the inputs rounded too).

// bf16Panels is a conv GEMM weight in bf16 panels; dims carries rows, cols
// and panels (its data is nil).
type bf16Panels struct {
	dims F32Matrix
	// data is the panel layout of the AVX2 and generic levels; on a CPU
	// with AVX512_BF16 it is made only if a run at those levels asks for
	// it (panelData), so the weights are held once.
	data []uint16
	// dot is the VDPBF16PS layout (bf16dot.go), kp pairs of inputs per
	// output; nil on a CPU without AVX512_BF16.
	dot []uint16
	kp  int
}

// newBF16Panels rounds W' (rows×cols, row-major) to bf16 and packs it: in
// the VDPBF16PS layout on a CPU with AVX512_BF16, else in panels.
func newBF16Panels(w []float32, rows, cols int) (*bf16Panels, error) {
	if rows < 1 || cols < 1 || len(w) != rows*cols {
		return nil, fmt.Errorf("simd: bf16 weights %d×%d given %d values", rows, cols, len(w))
	}
	for i, v := range w {
		if F32ToBF16(v)&0x7f80 == 0x7f80 {
			return nil, fmt.Errorf("simd: bf16 weights: w[row %d, col %d] = %v overflows bfloat16", i/cols, i%cols, v)
		}
	}
	p := &bf16Panels{dims: F32Matrix{rows: rows, cols: cols, panels: (rows + PanelRows - 1) / PanelRows}}
	if bf16Dot(AVX512VNNI) {
		p.packBF16Dot(w)
		return p, nil
	}
	p.data = make([]uint16, p.dims.panels*PanelRows*cols)
	for r := 0; r < rows; r++ {
		pd := p.data[(r/PanelRows)*PanelRows*cols:]
		j := bf16Slot(r % PanelRows)
		for k, v := range w[r*cols : (r+1)*cols] {
			pd[k*PanelRows+j] = F32ToBF16(v)
		}
	}
	return p, nil
}

// panelData returns the panel layout, made from the VDPBF16PS layout the
// first time a level without it asks (a forced level, the tests' level
// loop): the same bf16 values, so the same bits as packing them directly.
func (p *bf16Panels) panelData() []uint16 {
	if p.data != nil {
		return p.data
	}
	rows, cols := p.dims.rows, p.dims.cols
	data := make([]uint16, p.dims.panels*PanelRows*cols)
	for r := 0; r < rows; r++ {
		pd := data[(r/PanelRows)*PanelRows*cols:]
		dd := p.dot[(r/PanelRows)*PanelRows*2*p.kp:]
		j, jd := bf16Slot(r%PanelRows), 2*(r%PanelRows)
		for k := 0; k < cols; k++ {
			pd[k*PanelRows+j] = dd[(k/2)*2*PanelRows+jd+k%2]
		}
	}
	p.data = data
	return data
}

// bf16Slot returns the position of a panel's output j among one input's 16
// values: pair j%8, first for j < 8.
func bf16Slot(j int) int { return 2*(j%8) + j/8 }

// F32ToBF16 rounds v to bfloat16 (to nearest, ties to even; NaN stays NaN):
//
//	b := math.Float32bits(v); return uint16((b + 0x7fff + (b>>16)&1) >> 16)
func F32ToBF16(v float32) uint16 {
	b := math.Float32bits(v)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it quiet and a NaN
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// bytes returns the bytes the packed weights occupy.
func (p *bf16Panels) bytes() int { return 2 * (len(p.data) + len(p.dot)) }

// fma32 returns a·b + c rounded once to float32, as VFMADD231PS does. The
// product of two float32 is exact in float64; the sum is formed in float64
// rounded to odd (exact sum s + e by TwoSum, then the odd neighbour when
// inexact), which a second rounding to float32 turns into the correctly
// rounded result (53 ≥ 24 + 2 bits). convGemmBF16Generic inlines these
// operations; TestFMA32 checks them against math/big.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	q := float64(c)
	s := p + q
	bb := s - p
	if e := (p - (s - bb)) + (q - bb); e != 0 {
		s = roundToOdd(s, e)
	}
	return float32(s)
}

// roundToOdd returns s, the float64 nearest s + e (|e| below half an ulp of
// s, e ≠ 0), rounded to odd instead: s if its last mantissa bit is 1, else
// its neighbour on e's side. (Not inlined, so that fma32 is.)
//
//go:noinline
func roundToOdd(s, e float64) float64 {
	u := math.Float64bits(s)
	if u&1 != 0 || math.IsInf(s, 0) {
		return s
	}
	if (e > 0) == (s > 0) {
		u++ // away from zero
	} else {
		u--
	}
	return math.Float64frombits(u)
}

// convGemmBF16Generic is the reference bf16 conv GEMM: output panels
// [p0, p1) of w for rows i < m of x (stride ldx), each output's sum in
// input order through fma32's arithmetic (inlined here: the assembly's
// bits), accumulated in its float32 output (a store and reload change no
// bits).
func convGemmBF16Generic(y []float32, ldy int, x []float32, ldx, m int, dims *F32Matrix, wb []uint16, p0, p1 int) {
	k := dims.cols
	pb := PanelRows * k
	var wf [PanelRows]float64
	for p := p0; p < p1; p++ {
		pd := wb[p*pb : (p+1)*pb]
		nr := min(PanelRows, dims.rows-p*PanelRows)
		for i := 0; i < m; i++ {
			clear(y[i*ldy+p*PanelRows:][:nr])
		}
		for kk := 0; kk < k; kk++ {
			wv := pd[kk*PanelRows:][:PanelRows]
			for r := 0; r < nr; r++ {
				wf[r] = float64(math.Float32frombits(uint32(wv[bf16Slot(r)]) << 16))
			}
			for i := 0; i < m; i++ {
				xv := float64(x[i*ldx+kk])
				acc := y[i*ldy+p*PanelRows:][:nr]
				for r, q32 := range acc {
					pr := xv * wf[r] // exact: 24 × 8 significant bits
					q := float64(q32)
					s := pr + q
					bb := s - pr
					if e := (pr - (s - bb)) + (q - bb); e != 0 {
						s = roundToOdd(s, e)
					}
					acc[r] = float32(s)
				}
			}
		}
	}
}
