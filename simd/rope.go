package simd

import (
	"fmt"
	"math"
)

// Rope holds the cos/sin tables of rotate-half ("NeoX") rotary position
// embedding for one head width and positions 0..MaxPos()-1. It is read-only
// after NewRope and safe for concurrent use.
type Rope struct {
	headDim, half, maxPos int
	cos, sin              []float32 // [maxPos][half]
}

// NewRope builds the tables for heads of width headDim (even), base theta
// and maxPos positions, reproducing the float32 steps of the PyTorch
// reference (transformers' default rotary embedding) so the angles match it
// bit for bit:
//
//	e[i]       = float32(2i) / float32(headDim)                     (float32 division)
//	invFreq[i] = 1 / float32(pow(float32(theta), e[i]))             (pow rounded to float32, float32 division)
//	angle      = float32(pos) * invFreq[i]                          (float32 product)
//	cos, sin   = float32(cos(float64(angle))), float32(sin(…))      (correctly rounded)
//
// Checked against Debian's PyTorch 1.13 (CPU, headDim 128, theta 1e6, 8192
// positions): the angles match bit for bit given PyTorch's invFreq; invFreq
// matches in 63 of 64 entries (i = 37 is a near-halfway pow that PyTorch's
// vectorised powf rounds down, 1 ulp); cos/sin differ from PyTorch's float32
// cos/sin in about 7 % of entries, by at most 6e-8 absolute (one ulp of 1).
func NewRope(headDim int, theta float64, maxPos int) (*Rope, error) {
	switch {
	case headDim <= 0 || headDim%2 != 0:
		return nil, fmt.Errorf("simd: rope head_dim %d is not a positive even number", headDim)
	case !(theta > 1) || math.IsInf(theta, 0):
		return nil, fmt.Errorf("simd: rope theta %v is not a finite number > 1", theta)
	case maxPos <= 0 || maxPos > 1<<24:
		return nil, fmt.Errorf("simd: rope max positions %d outside [1, 2^24]", maxPos)
	}
	half := headDim / 2
	r := &Rope{headDim: headDim, half: half, maxPos: maxPos,
		cos: make([]float32, maxPos*half), sin: make([]float32, maxPos*half)}
	base := float64(float32(theta))
	inv := make([]float32, half)
	for i := range inv {
		e := float32(2*i) / float32(headDim)
		inv[i] = 1 / float32(math.Pow(base, float64(e)))
	}
	for p := range maxPos {
		row := p * half
		for i, f := range inv {
			a := float64(float32(p) * f)
			r.cos[row+i] = float32(math.Cos(a))
			r.sin[row+i] = float32(math.Sin(a))
		}
	}
	return r, nil
}

// HeadDim returns the head width the tables were built for.
func (r *Rope) HeadDim() int { return r.headDim }

// MaxPos returns the number of positions the tables cover.
func (r *Rope) MaxPos() int { return r.maxPos }

// CosSin returns the tables' row for position pos: cos and sin for the
// headDim/2 frequencies. The slices alias the tables; do not modify them.
func (r *Rope) CosSin(pos int) (cos, sin []float32) {
	if pos < 0 || pos >= r.maxPos {
		panic(shapeBug("Rope.CosSin", "position "+itoa(pos)+" outside [0, "+itoa(r.maxPos)+")"))
	}
	return r.cos[pos*r.half : (pos+1)*r.half], r.sin[pos*r.half : (pos+1)*r.half]
}

// Apply rotates, in place, the nHeads heads of x (nHeads×headDim, one token)
// for position pos, pairing element i with i+headDim/2:
//
//	for i < d/2: a, b := x[i], x[i+d/2]
//	             x[i]     = float32(a*cos[i]) - float32(b*sin[i])
//	             x[i+d/2] = float32(b*cos[i]) + float32(a*sin[i])
//
// which is PyTorch's x·cos + rotate_half(x)·sin with the same roundings. It
// is plain Go at every level: per token it touches (16+8)·128 floats, far
// too little for assembly to matter next to the GEMVs. It panics (a caller
// bug) when len(x) != nHeads·headDim or pos is outside the tables.
func (r *Rope) Apply(x []float32, nHeads, pos int) {
	if nHeads < 0 || len(x) != nHeads*r.headDim {
		panic(shapeBug("Rope.Apply", "len(x) = "+itoa(len(x))+", want nHeads "+itoa(nHeads)+" × headDim "+itoa(r.headDim)))
	}
	cos, sin := r.CosSin(pos)
	h := r.half
	for base := 0; base < len(x); base += r.headDim {
		lo := x[base : base+h : base+h]
		hi := x[base+h : base+2*h : base+2*h]
		for i := range lo {
			c, s := cos[i], sin[i]
			a, b := lo[i], hi[i]
			lo[i] = float32(a*c) - float32(b*s)
			hi[i] = float32(b*c) + float32(a*s)
		}
	}
}
