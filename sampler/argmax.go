package sampler

// argmaxFirst is torch.argmax over one row: the first NaN if there is one,
// else the first index of the maximum (an all -inf row gives 0).
func argmaxFirst(x []float32) int32 {
	bi, bv := 0, x[0]
	if bv != bv {
		return 0
	}
	for i := 1; i < len(x); i++ {
		v := x[i]
		if v != v {
			return int32(i)
		}
		if v > bv {
			bi, bv = i, v
		}
	}
	return int32(bi)
}

// rowMax returns the row's maximum and whether the row is one softmax can
// handle: no NaN, no +inf, not every value -inf.
func rowMax(x []float32) (float32, bool) {
	m := x[0]
	nan := false
	for _, v := range x {
		if v > m {
			m = v
		}
		nan = nan || v != v
	}
	if nan || m > maxFloat32 || m < -maxFloat32 {
		return m, false
	}
	return m, true
}

// maxFloat32 is the largest finite float32.
const maxFloat32 = 3.40282346638528859811704183484516925440e+38
