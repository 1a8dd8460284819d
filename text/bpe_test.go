package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestBPEHeapMatchesScan: the heap BPE of long pieces gives the ids of the
// quadratic scan (the definition: lowest rank first, leftmost on a tie) on
// every piece of the corpus and on seeded random long pieces.
func TestBPEHeapMatchesScan(t *testing.T) {
	_, tk := tokenizers(t)
	var pieces []string
	for _, c := range suiteCases(t) {
		ends := splitPieces(nil, c.Text)
		start := 0
		for _, e := range ends {
			pieces = append(pieces, c.Text[start:e])
			start = e
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alpha := []string{"a", "b", "e", "th", "in", "我", "的", "é", "ö", "ab", "ing", " "}
	for i := 0; i < 200; i++ {
		var b strings.Builder
		for b.Len() < 64+rng.IntN(400) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		pieces = append(pieces, b.String(), strings.Repeat("a", 64+i), strings.Repeat("我", 22+i))
	}
	for _, p := range pieces {
		want := tk.bpeScan(nil, p)
		if got := tk.bpeHeap(nil, p); !slices.Equal(got, want) {
			t.Fatalf("bpeHeap(%q) = %v, scan gives %v", p, got, want)
		}
	}
}

// bpeScan runs the quadratic scan whatever the piece's length.
func (t *Tokenizer) bpeScan(dst []int32, piece string) []int32 {
	syms := make([]int32, 0, len(piece))
	for i := 0; i < len(piece); i++ {
		syms = append(syms, t.byteID[piece[i]])
	}
	for len(syms) > 1 {
		best, at := noMerge, -1
		for i := 0; i+1 < len(syms); i++ {
			if r := t.rank(syms[i], syms[i+1]); r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		syms[at] = t.merges[pairKey(syms[at], syms[at+1])].id
		syms = append(syms[:at+1], syms[at+2:]...)
	}
	return append(dst, syms...)
}
