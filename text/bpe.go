package text

// merge is one merge rule: the pair's rank (its line in merges.txt, lower
// merges first) and the id of the merged token.
type merge struct {
	rank int32
	id   int32
}

// pairKey packs a pair of token ids into a merge-table key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// noMerge is the rank of a pair no rule merges.
const noMerge = int32(1<<31 - 1)

// bpe appends to dst the ids of piece (raw bytes) after byte-level BPE:
// start from one token per byte, then repeatedly merge the adjacent pair
// of lowest rank (the leftmost on a tie) until no rule applies. syms and
// ranks are scratch slices the caller reuses; they are returned grown.
func (t *Tokenizer) bpe(dst []int32, piece string, syms []int32, ranks []int32) ([]int32, []int32, []int32) {
	if len(piece) >= longPiece {
		return t.bpeHeap(dst, piece), syms, ranks
	}
	syms = syms[:0]
	for i := 0; i < len(piece); i++ {
		syms = append(syms, t.byteID[piece[i]])
	}
	ranks = ranks[:0]
	for i := 0; i+1 < len(syms); i++ {
		ranks = append(ranks, t.rank(syms[i], syms[i+1]))
	}
	for len(syms) > 1 {
		best, at := noMerge, -1
		for i, r := range ranks {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		syms[at] = t.merges[pairKey(syms[at], syms[at+1])].id
		syms = append(syms[:at+1], syms[at+2:]...)
		ranks = append(ranks[:at], ranks[at+1:]...)
		if at > 0 {
			ranks[at-1] = t.rank(syms[at-1], syms[at])
		}
		if at < len(ranks) {
			ranks[at] = t.rank(syms[at], syms[at+1])
		}
	}
	return append(dst, syms...), syms, ranks
}

// rank returns the rank of the rule merging a and b, or noMerge.
func (t *Tokenizer) rank(a, b int32) int32 {
	if m, ok := t.merges[pairKey(a, b)]; ok {
		return m.rank
	}
	return noMerge
}
