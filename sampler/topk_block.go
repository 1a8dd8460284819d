package sampler

// The block pre-pass of the top-k fast path. The row is cut into blocks of
// blockLen logits and each block's maximum is taken without branches. The k
// largest block maxima are k distinct logits, so the k-th largest block
// maximum t0 is at most the row's k-th largest logit: every candidate the
// fast path must keep (≥ lowerBound of the row's k-th largest) is also
// ≥ lowerBound(t0), and a block whose maximum is below lowerBound(t0) holds
// none. With k ≪ V/blockLen, t0 lies close to the final threshold, so few
// blocks are scanned and few candidates collected, in one short selection
// instead of several.

// blockLen is the number of logits per block of the pre-pass.
const blockLen = 16

// blocks is the number of blocks of a row of v logits.
func blocks(v int) int { return (v + blockLen - 1) / blockLen }

// candidatesByBlock writes to s.keys the (value, index) keys of every value
// of x ≥ lowerBound(t0, temp), a superset of the top-k candidates, and
// returns their count; nan reports a NaN in x (the keys are then
// meaningless). It needs blocks(len(x)) > k.
func (s *Sampler) candidatesByBlock(x []float32, k int, temp float32) (n int, nan bool) {
	v := len(x)
	bm := s.bmax[:blocks(v)]
	full := v / blockLen
	for b := range full {
		m := max16(x[b*blockLen : (b+1)*blockLen])
		bm[b] = m
		nan = nan || m != m
	}
	if full < len(bm) {
		t := x[full*blockLen:]
		m := t[0]
		for _, xv := range t[1:] {
			m = maxf(m, xv) // maxf propagates NaN
		}
		bm[full] = m
		nan = nan || m != m
	}
	if nan {
		return 0, true
	}
	keys := s.keys
	for b, m := range bm {
		keys[b] = uint64(sortable(m)) << 32
	}
	selectNth(keys[:len(bm)], len(bm)-k)
	lb := lowerBound(unsortable(uint32(keys[len(bm)-k]>>32)), temp)
	for b, m := range bm {
		if m < lb {
			continue
		}
		lo := b * blockLen
		for o, xv := range x[lo:min(lo+blockLen, v)] {
			if xv >= lb {
				keys[n] = uint64(sortable(xv))<<32 | uint64(uint32(lo+o))
				n++
			}
		}
	}
	return n, false
}

// max16 is the maximum of b[:16] (NaN if any is NaN), as a tree for
// instruction-level parallelism.
func max16(b []float32) float32 {
	b = b[:16]
	m0 := maxf(maxf(b[0], b[1]), maxf(b[2], b[3]))
	m1 := maxf(maxf(b[4], b[5]), maxf(b[6], b[7]))
	m2 := maxf(maxf(b[8], b[9]), maxf(b[10], b[11]))
	m3 := maxf(maxf(b[12], b[13]), maxf(b[14], b[15]))
	return maxf(maxf(m0, m1), maxf(m2, m3))
}
