package simd

import (
	"fmt"
	"math"
)

// ArgminShifted returns the index n minimizing norm[n] − 2·s[n] (each
// difference rounded to float32; the lowest index among equal minima; 0
// when no difference is below +∞): a codebook's nearest codeword by
// squared distance |e|² − 2·r·e, given the scores r·e. It panics (a caller
// bug) when the lengths differ or are 0.
func ArgminShifted(norm, s []float32) int {
	if len(norm) != len(s) || len(s) == 0 {
		panic(lenBug("ArgminShifted", "norm", len(norm), "s", len(s)))
	}
	if Active() == AVX512VNNI && haveAsm {
		var best [16]float32
		var idx [16]int32
		argminShiftedAVX512(&norm[0], &s[0], len(s), &argminIota, &best, &idx)
		bi, bd := 0, float32(math.Inf(1))
		for l, d := range best {
			if i := int(idx[l]); d < bd || d == bd && i < bi {
				bi, bd = i, d
			}
		}
		return bi
	}
	return argminShiftedGeneric(norm, s)
}

// argminIota is the lanes' first indices for argminShiftedAVX512.
var argminIota = [16]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// argminShiftedGeneric is ArgminShifted in plain Go.
func argminShiftedGeneric(norm, s []float32) int {
	best, bd := 0, float32(math.Inf(1))
	for n, v := range s {
		if d := norm[n] - 2*v; d < bd {
			best, bd = n, d
		}
	}
	return best
}

// NearestCodes sets ids[t] = ArgminShifted(norm, scores[t·N:(t+1)·N]) for
// T rows of N = len(norm) scores, rows split over the pool for large
// calls. It is the codec encoder's optional nearest-codeword search
// (codec.NearestBackend).
func (b *Backend) NearestCodes(ids []int32, scores, norm []float32, T int) error {
	N := len(norm)
	if T < 1 || N < 1 || len(ids) != T || len(scores) != T*N {
		return fmt.Errorf("simd: backend: NearestCodes of %d rows of %d with len(ids) %d, len(scores) %d", T, N, len(ids), len(scores))
	}
	t := &b.nearT
	*t = nearTask{ids: ids, scores: scores, norm: norm}
	if b.pool != nil && T > 1 && T*N >= nearSplit {
		b.pool.Run(t, T, 1)
	} else {
		t.RunRange(0, T)
	}
	*t = nearTask{}
	return nil
}

// nearSplit is the number of scores from which NearestCodes splits its
// rows over the pool.
const nearSplit = 32768

// nearTask runs NearestCodes on rows [lo, hi).
type nearTask struct {
	ids          []int32
	scores, norm []float32
}

// RunRange implements Task.
func (t *nearTask) RunRange(lo, hi int) {
	N := len(t.norm)
	for r := lo; r < hi; r++ {
		t.ids[r] = int32(ArgminShifted(t.norm, t.scores[r*N:(r+1)*N]))
	}
}
