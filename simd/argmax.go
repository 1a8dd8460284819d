package simd

// Argmax returns the index of the first maximum of x (ties go to the lowest
// index); NaN never wins, and an all-NaN x gives 0:
//
//	best := -1
//	for i, v := range x { if v == v && (best < 0 || v > x[best]) { best = i } }
//
// It is plain Go at every level: it runs once per sampled token over at
// most a few thousand logits. It panics (a caller bug) on an empty x.
func Argmax(x []float32) int {
	if len(x) == 0 {
		panic(shapeBug("Argmax", "empty slice"))
	}
	best := -1
	var bv float32
	for i, v := range x {
		if v != v {
			continue
		}
		if best < 0 || v > bv {
			best, bv = i, v
		}
	}
	if best < 0 {
		return 0
	}
	return best
}
