package simd

// SiLUMul is the SwiGLU activation of the MLP, PyTorch's
// silu(gate) * up with silu(g) = g / (1 + exp(−g)):
//
//	for i := range out { out[i] = (gate[i] / (1 + exp(-gate[i]))) * up[i] }
//
// in float32 with exp from vec_exp.go (≤ 1.2e-7 relative), an exact
// division and one rounding per operation at every level. out may be gate
// or up. gate = −Inf gives NaN (−Inf/Inf), as in PyTorch; gate below about
// −88.7 gives −0 (the true value is below 1e-36). It panics (a caller bug)
// unless the three lengths agree.
func SiLUMul(out, gate, up []float32) {
	n := len(out)
	if len(gate) != n || len(up) != n {
		panic(shapeBug("SiLUMul", "len(out) = "+itoa(n)+", len(gate) = "+itoa(len(gate))+", len(up) = "+itoa(len(up))))
	}
	if n == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		siluMulAVX512(&out[0], &gate[0], &up[0], n)
	case AVX2:
		k := n &^ 7
		if k > 0 {
			siluMulAVX2(&out[0], &gate[0], &up[0], k)
		}
		siluMulGeneric(out[k:], gate[k:], up[k:])
	default:
		siluMulGeneric(out, gate, up)
	}
}

// SiLU writes out[i] = x[i] / (1 + exp(−x[i])) (out may be x). It is plain
// Go at every level: it runs once per text token in the text projection,
// not in the decoder layers. It panics (a caller bug) when the lengths
// differ.
func SiLU(out, x []float32) {
	if len(out) != len(x) {
		panic(lenBug("SiLU", "out", len(out), "x", len(x)))
	}
	x = x[:len(out)]
	for i, g := range x {
		out[i] = g / (1 + expf32(-g))
	}
}

func siluMulGeneric(out, gate, up []float32) {
	gate = gate[:len(out)]
	up = up[:len(out)]
	for i, g := range gate {
		out[i] = float32(g/(1+expf32(-g))) * up[i]
	}
}
