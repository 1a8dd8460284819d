package sampler

// The block pre-pass of the top-k fast path. One branch-free pass over the
// row takes the maximum of every block of blockLen logits (as keys) and
// notices NaNs. Any t0 with at least k block maxima ≥ t0 is at most the
// row's k-th largest (the block maxima are distinct logits), so every
// candidate the fast path must keep (≥ lowerBound of the row's k-th
// largest) is ≥ lowerBound(t0) too, and a block whose maximum is below
// lowerBound(t0) holds none. A histogram of the block maxima finds such a
// t0 just below the k-th largest block maximum without a selection; with
// k ≪ the number of blocks it lies close to the final threshold, so only
// the few blocks whose maximum reaches lowerBound(t0) are scanned (about
// k of them) and few candidates collected. The two passes over the row,
// blockKeys and scanBlocks, have a WASI form (topk_block_wasm.go: no
// branches, integer loads) and a native one (topk_block_other.go).

// blockLen is the number of logits per block of the pre-pass.
const blockLen = 8

// blocks is the number of blocks of a row of v logits.
func blocks(v int) int { return (v + blockLen - 1) / blockLen }

// candidatesByBlock writes to s.keys the packed keys of every value of x
// that is ≥ lowerBound(t0, temp) and not -inf, in ascending index order (a
// superset of the top-k survivors; fewer than k only when the row's k-th
// largest is -inf), and returns their count and the key of the largest
// value; nan reports a NaN in x (the rest is then meaningless). It needs
// blocks(len(x)) ≥ k (the fast path takes it from 4k on). It keeps the
// block maxima in s.bmax (as keys) and uses s.surv as scratch.
func (s *Sampler) candidatesByBlock(x []float32, k int, temp float32) (n int, top int64, nan bool) {
	bk := keysOf(s.bmax[:blocks(len(x))])
	nan, top = blockKeys(x, bk)
	if nan {
		return 0, 0, true
	}
	lb := lowerBound(valueOf(blockBound(bk, k, top, s.keys)), temp)
	c := max(keyAtLeast(lb), keyNegInf+1) - 1 // keep keys above c; -inf never survives
	sel := s.surv[:len(bk)]
	ns := selectBlocks(bk, c, sel)
	return scanBlocks(bitsOf(x), sel[:ns], c, s.keys), top, false
}

// blockBound returns a key at most the k-th largest of the block maxima
// bk (top is the largest), so at most the row's k-th largest, and close to
// it: the lowest key of the histogram bin that holds the k-th largest. When
// the k-th largest lies below the histogram it selects it exactly, using
// keys (len ≥ len(bk)) as scratch.
func blockBound(bk []uint32, k int, top int64, keys []uint64) int64 {
	var h keyHist
	base := histBase(top)
	b := 0
	for ; b+4 <= len(bk); b += 4 {
		e := (*[4]uint32)(bk[b : b+4])
		j0, j1 := histBin(int64(e[0]), base), histBin(int64(e[1]), base)
		j2, j3 := histBin(int64(e[2]), base), histBin(int64(e[3]), base)
		h[j0]++
		h[j1]++
		h[j2]++
		h[j3]++
	}
	for _, m := range bk[b:] {
		h[histBin(int64(m), base)]++
	}
	if j := h.find(k); j > 0 {
		return max(base+int64(j)<<histShift, keyNegInf)
	}
	keys = keys[:len(bk)]
	for i, m := range bk {
		keys[i] = pack(int64(m), i)
	}
	selectNth(keys, len(keys)-k)
	return packedKey(keys[len(keys)-k])
}

// selectBlocks writes to sel the indices of the blocks whose maximum key
// bk[b] is above c, ascending, and returns their count (branch-free).
func selectBlocks(bk []uint32, c int64, sel []int32) int {
	sel = sel[:len(bk)]
	n, b := 0, 0
	for ; b+4 <= len(bk); b += 4 {
		e := (*[4]uint32)(bk[b : b+4])
		m0, m1, m2, m3 := int64(e[0]), int64(e[1]), int64(e[2]), int64(e[3])
		sel[n] = int32(b)
		n += above(m0, c)
		sel[n] = int32(b + 1)
		n += above(m1, c)
		sel[n] = int32(b + 2)
		n += above(m2, c)
		sel[n] = int32(b + 3)
		n += above(m3, c)
	}
	for ; b < len(bk); b++ {
		sel[n] = int32(b)
		n += above(int64(bk[b]), c)
	}
	return n
}
