package simd

// ELU computes the exponential linear unit with α = 1 (torch.nn.ELU):
//
//	for i, v := range x { if v < 0 { out[i] = expm1(v) } else { out[i] = v } }
//
// with expm1 the float32 steps of expm1Neg (Cephes' expf polynomial kept
// apart from its leading 1, so small arguments do not cancel; within 2
// ulps of math.Expm1), the same operations in the same order at every
// level (no fused multiply-add), so every level and the codec's portable
// copy give the same bits for finite inputs. out may be x. It panics (a
// caller bug) when the lengths differ.
func ELU(out, x []float32) {
	n := len(out)
	if len(x) != n {
		panic(shapeBug("ELU", "len(out) = "+itoa(n)+", len(x) = "+itoa(len(x))))
	}
	if n == 0 {
		return
	}
	switch Active() {
	case AVX512VNNI:
		eluAVX512(&out[0], &x[0], n, &eluConsts)
	default:
		eluGeneric(out, x)
	}
}

// eluLo clamps the argument so that 2ⁿ stays a normal float32; below it
// expm1 rounds to −1 anyway.
const eluLo = float32(-87)

// eluConsts are the constants the assembly broadcasts, in its order.
var eluConsts = [12]float32{eluLo, log2e, ln2Hi, ln2Lo, expC0, expC1, expC2, expC3, expC4, expC5, expOne, 0}
