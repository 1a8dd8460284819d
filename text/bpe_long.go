package text

// longPiece is the piece length (bytes) from which bpe switches from the
// quadratic scan to bpeHeap, which is O(n log n): a long run of letters
// (a CJK paragraph, a 100 KB word) must not cost seconds.
const longPiece = 64

// bpeHeap is bpe for long pieces: the symbols form a linked list and a
// min-heap holds candidate merges keyed (rank, position), so the merge taken
// is always the lowest rank, leftmost on a tie, as in bpe. An entry whose
// pair has changed since it was pushed is skipped when popped.
func (t *Tokenizer) bpeHeap(dst []int32, piece string) []int32 {
	n := len(piece)
	ids := make([]int32, n)
	next := make([]int32, n)
	prev := make([]int32, n)
	for i := 0; i < n; i++ {
		ids[i] = t.byteID[piece[i]]
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	next[n-1] = -1
	h := make(mergeHeap, 0, n)
	for i := 0; i+1 < n; i++ {
		if r := t.rank(ids[i], ids[i+1]); r != noMerge {
			h.push(r, int32(i))
		}
	}
	for len(h) > 0 {
		r, p := h.pop()
		q := next[p]
		if ids[p] < 0 || q < 0 || t.rank(ids[p], ids[q]) != r {
			continue // stale: p was merged away or its pair changed
		}
		ids[p] = t.merges[pairKey(ids[p], ids[q])].id
		ids[q] = -1
		next[p] = next[q]
		if next[q] >= 0 {
			prev[next[q]] = p
		}
		if a := prev[p]; a >= 0 {
			if r := t.rank(ids[a], ids[p]); r != noMerge {
				h.push(r, a)
			}
		}
		if b := next[p]; b >= 0 {
			if r := t.rank(ids[p], ids[b]); r != noMerge {
				h.push(r, p)
			}
		}
	}
	for i := int32(0); i >= 0; i = next[i] {
		dst = append(dst, ids[i])
	}
	return dst
}

// mergeHeap is a binary min-heap of (rank, position) packed in uint64s.
type mergeHeap []uint64

func (h *mergeHeap) push(rank, pos int32) {
	*h = append(*h, uint64(rank)<<32|uint64(uint32(pos)))
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func (h *mergeHeap) pop() (rank, pos int32) {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l] < s[m] {
			m = l
		}
		if l+1 < len(s) && s[l+1] < s[m] {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return int32(top >> 32), int32(uint32(top))
}
