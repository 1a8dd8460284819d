package sampler

import (
	"math"
	"slices"
)

// The top-k fast path. When a random row uses top-k without min_p and the
// processed logits are not wanted, only the survivors of top-k matter: every
// other token has probability 0 after the mask, so it can neither win the
// race nor change the softmax sum. The fast path therefore never divides the
// whole row by the temperature and never materializes the mask. It bounds
// the k-th largest raw logit from below in one pass over the row (the block
// pre-pass, or a stream for short rows), collects the few candidates above
// the bound, selects the k-th largest among them, divides only the
// candidates, and keeps exactly the set the full pipeline keeps:
//
//   - x ↦ fl(x/T) is monotone (non-decreasing), so the k-th largest of the
//     divided row is fl(kth/T) and the divided maximum is fl(max/T);
//   - a raw value below the raw threshold can still divide to the same float
//     as the threshold (a tie the full path keeps), so candidates are kept
//     down to a lower bound lb(t) below which fl(x/T) < fl(t/T) is certain.
//
// Candidates are compared as integer keys (topk_keys.go); the survivors'
// test, on the divided values, is the full path's own float comparison.
// The generator still advances by exactly V elements (exponentialAt).

// lowerBound returns a value below which fl(x/T) < fl(t/T) for every x,
// when temperature is not 1 (then it returns t itself).
func lowerBound(t, temp float32) float32 {
	if temp == 1 || t != t {
		return t
	}
	if math.IsInf(float64(t), 0) {
		return t
	}
	// fl(x/T) == fl(t/T) needs |x − t| ≤ T·ulp(t/T) ≤ 2⁻²²·|t| (plus the
	// subnormal range near 0); 2⁻¹⁸ and 1e-36 leave a wide margin.
	d := math.Abs(float64(t))*(1.0/(1<<18)) + 1e-36
	return float32(float64(t) - d)
}

// topKFast selects, on the raw row x, every candidate that survives top-k
// after division by temp. It returns the survivors (ascending indices, in
// s.surv), the divided maximum, and ok = false when the row is degenerate
// (NaN, or a divided maximum that is ±inf), in which case token 0 follows.
// The survivors' divided values are written back into x (so are those of
// the other candidates; the rest of x is left raw).
func (s *Sampler) topKFast(x []float32, k int, temp float32) ([]int32, float32, bool) {
	keys := s.keys
	var n int
	var nan, ascending bool
	maxk := int64(keyNegInf) // the largest candidate
	if blocks(len(x)) >= 4*k {
		n, maxk, nan = s.candidatesByBlock(x, k, temp)
		ascending = true
	} else {
		n, nan = s.candidatesStream(x, k, temp)
		for _, kk := range keys[:n] {
			maxk = max(maxk, packedKey(kk))
		}
	}
	// x/1 is x, so dividing by a temperature of 1 changes nothing.
	maxT := valueOf(maxk) / temp
	if nan || maxT > maxFloat32 || maxT < -maxFloat32 {
		return nil, 0, false
	}
	// The k-th largest candidate is the row's k-th largest. The block
	// pre-pass leaves out -inf values, so fewer than k candidates mean that
	// the k-th largest is -inf.
	thrk := int64(keyNegInf)
	switch {
	case n < k:
	case ascending && 2*n <= len(keys):
		// Select on a copy so that the keys stay in index order and the
		// survivors need no sort.
		top := keys[n : 2*n]
		copy(top, keys[:n])
		selectNth(top, n-k)
		thrk = packedKey(top[n-k])
	default:
		ascending = false
		selectNth(keys[:n], n-k)
		thrk = packedKey(keys[n-k])
	}
	thrT := valueOf(thrk) / temp
	if thrT < -maxFloat32 {
		thrT = -maxFloat32 // -inf never survives
	}
	surv := s.surv[:n]
	m := 0
	for _, kk := range keys[:n] {
		id := packedIndex(kk)
		surv[m] = int32(id)
		xv := x[id] / temp
		x[id] = xv
		if xv >= thrT {
			m++
		}
	}
	surv = surv[:m]
	if !ascending {
		slices.Sort(surv)
	}
	return surv, maxT, true
}

// candidatesStream writes to s.keys the packed keys of a superset of
// the top-k candidates (every value ≥ lowerBound of the row's k-th largest)
// in one pass, raising the bound as it goes, and returns their count; nan
// reports a NaN in x (the keys are then meaningless).
func (s *Sampler) candidatesStream(x []float32, k int, temp float32) (n int, nan bool) {
	keys := s.keys
	v := len(x)
	trigger := min(4*k, v)
	thr := float32(math.Inf(-1))
	lb := thr
	for i, xv := range x {
		// One compare per element in the common case: xv < lb is false
		// both for a candidate and for NaN, which the rare branch tells apart.
		if xv < lb {
			continue
		}
		if xv != xv {
			nan = true
			continue
		}
		keys[n] = pack(keyOf(xv), i)
		n++
		if n == trigger { // n > k
			selectNth(keys[:n], n-k)
			thr = valueOf(packedKey(keys[n-k]))
			lb = lowerBound(thr, temp)
			n = keepAtLeast(keys[:n], lb)
			trigger = min(max(trigger, n+2*k), v)
		}
	}
	return n, nan
}

// keepAtLeast moves the packed keys whose value is ≥ lb to the front, in
// order, and returns their count.
func keepAtLeast(keys []uint64, lb float32) int {
	b := pack(keyAtLeast(lb), 0)
	m := 0
	for _, kk := range keys {
		keys[m] = kk
		if kk >= b {
			m++
		}
	}
	return m
}

// selectSmall is the longest range selectNth sorts by insertion: 7
// measured a few percent faster in the WASI guest than 17, and no slower
// natively.
const selectSmall = 7

// selectNth partially orders a so that a[n] is the element a sorted
// ascending would hold there, with everything before it ≤ and after it ≥
// (Hoare quickselect, median-of-three pivots, insertion sort of the last
// range once it spans at most selectSmall elements).
func selectNth(a []uint64, n int) {
	lo, hi := 0, len(a)-1
	for hi-lo >= selectSmall {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case n <= j:
			hi = j
		case n >= i:
			lo = i
		default:
			return
		}
	}
	for i := lo + 1; i <= hi; i++ {
		for j := i; j > lo && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// unsortable inverts sortable.
func unsortable(b uint32) float32 {
	m := uint32(int32(^b) >> 31) // all ones when the original was negative
	return math.Float32frombits(b ^ (m | 1<<31))
}
