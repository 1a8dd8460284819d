package simd

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The bf16 convolutions that compute in bf16 (AVX-512 BF16, VDPBF16PS): the
// weights as bf16 (bf16Panels) and each conv call's input rows rounded to
// bf16 (VCVTNEPS2BF16: to nearest even, denormals to zero), multiplied in
// pairs of inputs and accumulated in fp32. Layout of the weights: panels of
// PanelRows outputs; per pair q of inputs (2q, 2q+1; the last pair of an
// odd K padded with a zero weight) the 16 outputs' two weights, 64 bytes.
// The arithmetic, per output and pair, as the instruction defines it: the
// fp32 accumulator plus the exact product of the odd inputs, rounded to
// nearest even, then plus the product of the even inputs, rounded again
// (bf16 denormals read as zero, a denormal result written as zero). The
// AVX-512 level uses it where the CPU has AVX512_BF16; the other levels
// keep the fp32 arithmetic on bf16 weights (conv_bf16.go).

// bf16Dot reports whether the bf16 convs compute with VDPBF16PS at level l.
func bf16Dot(l Level) bool {
	return haveAsm && l == AVX512VNNI && cpu.X86.HasAVX512BF16
}

// packBF16Dot fills p.dot from W' (rows×cols, row-major) in pair layout.
func (p *bf16Panels) packBF16Dot(w []float32) {
	rows, cols := p.dims.rows, p.dims.cols
	p.kp = (cols + 1) / 2
	p.dot = make([]uint16, p.dims.panels*PanelRows*2*p.kp)
	for r := 0; r < rows; r++ {
		pd := p.dot[(r/PanelRows)*PanelRows*2*p.kp:]
		j := r % PanelRows
		for k, v := range w[r*cols : (r+1)*cols] {
			pd[(k/2)*2*PanelRows+2*j+k%2] = F32ToBF16(v)
		}
	}
}

// bf16RNE rounds v to bf16 as VCVTNEPS2BF16 does: a denormal to a zero of
// its sign, otherwise F32ToBF16.
func bf16RNE(v float32) uint16 {
	b := math.Float32bits(v)
	if b&0x7f800000 == 0 {
		return uint16(b>>16) & 0x8000
	}
	return F32ToBF16(v)
}

// toBF16 rounds src into dst (len(dst) ≥ len(src)) at level l.
func toBF16(l Level, dst []uint16, src []float32) {
	n := 0
	if bf16Dot(l) && len(src) >= 16 {
		n = len(src) / 16 * 16
		cvtBF16AVX512(&dst[0], &src[0], n)
	}
	for i := n; i < len(src); i++ {
		dst[i] = bf16RNE(src[i])
	}
}

// bf16Float returns the fp32 value of bf16 b, a denormal read as zero.
func bf16Float(b uint16) float32 {
	if b&0x7f80 == 0 {
		b &= 0x8000
	}
	return math.Float32frombits(uint32(b) << 16)
}

// dpAdd returns acc + p rounded to float32 (nearest even), a denormal
// result flushed to a zero of its sign: one VDPBF16PS half-step (p, a
// product of two bf16, is exact in float32).
func dpAdd(acc, p float32) float32 {
	s := acc + p
	if b := math.Float32bits(s); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return s
}

// convGemmBF16DotGeneric is the definition of the VDPBF16PS conv GEMM:
// output panels [p0, p1) of p for rows i < m of the bf16 inputs xb (stride
// ldx; row i's pair q is xb[i*ldx+2q], xb[i*ldx+2q+1]).
func convGemmBF16DotGeneric(y []float32, ldy int, xb []uint16, ldx, m int, p *bf16Panels, p0, p1 int) {
	pb := PanelRows * 2 * p.kp
	for pi := p0; pi < p1; pi++ {
		pd := p.dot[pi*pb : (pi+1)*pb]
		nr := min(PanelRows, p.dims.rows-pi*PanelRows)
		for i := 0; i < m; i++ {
			acc := y[i*ldy+pi*PanelRows:][:nr]
			clear(acc)
			xr := xb[i*ldx:]
			for q := 0; q < p.kp; q++ {
				x0, x1 := bf16Float(xr[2*q]), bf16Float(xr[2*q+1])
				wq := pd[q*2*PanelRows:]
				for r := range acc {
					a := dpAdd(acc[r], bf16Float(wq[2*r+1])*x1)
					acc[r] = dpAdd(a, bf16Float(wq[2*r])*x0)
				}
			}
		}
	}
}

// DefaultCodecPrecision returns the codec decoder's precision when none is
// asked for, chosen by measurement (RATIONALE.md, "Which codec precision
// is the default?"): at a level that computes in bf16 (VDPBF16PS, and the
// int8 VNNI conv kernel beside it) "bf16+res=int8" — the residual units'
// convs, 81 % of the frame's MACs, in int8 (twice VDPBF16PS's rate), the
// rest in bf16: 34.6 dB against fp32 over 200 frames of the real geometry,
// 0.69 of bf16's time; at AVX-512 VNNI without BF16 "fp32+res=int8" (41.7
// dB, 0.46 of fp32's time, measured at this level); elsewhere "fp32" (bf16
// weights widened to fp32 are no faster where the codec is compute-bound,
// and the int8 convs run only at AVX-512 VNNI).
func DefaultCodecPrecision() string {
	switch {
	case bf16Dot(active) && q8Asm(active):
		return "bf16+res=int8"
	case q8Asm(active):
		return "fp32+res=int8"
	}
	return "fp32"
}

// DefaultEncoderPrecision returns the voice encoders' precision (the
// speaker encoder and the codec encoder, which have no int8 path) when none
// is asked for: "bf16" at a level that computes in bf16, else "fp32".
func DefaultEncoderPrecision() string {
	if bf16Dot(active) {
		return "bf16"
	}
	return "fp32"
}
