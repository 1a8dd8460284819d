package simd

// Attention computes, for one query token, grouped-query attention against
// a KV cache of nPos positions. q and out are nHeads×headDim; k and v are
// laid out [pos][nKV][headDim] (row stride nKV·headDim; they may be longer
// than nPos rows, e.g. a whole preallocated cache). Query head h reads KV
// head h/(nHeads/nKV):
//
//	for each head h, g := h / (nHeads/nKV):
//	    s[p]   = (q[h]·k[p][g]) * scale        for p < nPos   (float32)
//	    s      = Softmax(s)                                    (float32, max-subtracted)
//	    out[h] = Σ_p s[p] · v[p][g]                            (float32, in position order)
//
// For causal prefill the caller passes nPos = p+1 for the query at position
// p. scratch must hold at least nPos·min(nHeads/nKV, heads processed)
// floats (AttentionScratch; nPos·nHeads always suffices). The heads sharing
// a KV head are processed together, 64 positions at a time, so each K and V
// row comes from memory once per group and then from L1 (1.5× faster at
// 2048 positions than head by head). Nothing is allocated. Numerics: the dot products follow
// the level's order (generic: Dot's 4 partial sums; AVX2: 8 lanes ×
// headDim/8 fused multiply-adds, then a fixed tree; AVX-512: 16 lanes ×
// headDim/16, then a fixed tree — the same for every position, whatever nPos
// is), the softmax is Softmax's, and the weighted sum of V rows adds one
// position at a time (AVX2/AVX-512 with fused multiply-adds, generic with a
// rounded product). The assembly levels need headDim to be a multiple of 8
// (AVX2) or 16 (AVX-512); other widths run the generic code. It panics (a
// caller bug) on inconsistent shapes.
func Attention(out, q, k, v []float32, nPos, nHeads, nKV, headDim int, scale float32, scratch []float32) {
	AttentionHeads(out, q, k, v, nPos, nHeads, nKV, headDim, scale, scratch, 0, nHeads)
}

// AttentionScratch returns the scratch length AttentionHeads needs for
// heads [h0, h1): nPos times the largest number of those heads that share
// one KV head.
func AttentionScratch(nPos, nHeads, nKV, h0, h1 int) int {
	if nKV <= 0 || h1 <= h0 {
		return 0
	}
	return nPos * min(nHeads/nKV, h1-h0)
}

// AttentionHeads is Attention for the query heads [h0, h1) only: it reads
// q and writes out for those heads and leaves the others untouched, so
// threads can split the heads (best on KV-group boundaries, i.e. multiples
// of nHeads/nKV). scratch needs AttentionScratch(nPos, nHeads, nKV, h0, h1)
// floats; concurrent calls need separate scratch.
func AttentionHeads(out, q, k, v []float32, nPos, nHeads, nKV, headDim int, scale float32, scratch []float32, h0, h1 int) {
	AttentionKV(out, q, k, v, nPos, nHeads, nKV, headDim, headDim, nKV*headDim, scale, scratch, h0, h1)
}

// AttentionKV is AttentionHeads for a KV cache in any row layout: row p of
// KV head g starts at k[g·headStride + p·posStride] (likewise in v), and
// holds headDim floats. AttentionHeads' [pos][nKV][headDim] is headStride =
// headDim, posStride = nKV·headDim; a head-major cache
// [nKV][maxPos][headDim] is headStride = maxPos·headDim, posStride =
// headDim, which reads each KV head's rows contiguously: measured 1.35×
// faster than [pos][nKV][headDim] for 16/8 heads of 128 at 2048 positions
// with 28 layers' caches (448 MiB, from DRAM), and at the DRAM read floor.
func AttentionKV(out, q, k, v []float32, nPos, nHeads, nKV, headDim, headStride, posStride int, scale float32, scratch []float32, h0, h1 int) {
	checkAttention(out, q, k, v, nPos, nHeads, nKV, headDim, headStride, posStride, scratch, h0, h1)
	if h0 == h1 {
		return
	}
	lvl := Active()
	if lvl == AVX512VNNI && headDim%16 != 0 || lvl == AVX2 && headDim%8 != 0 {
		lvl = Generic
	}
	group := nHeads / nKV
	stride := posStride
	for h := h0; h < h1; {
		g := h / group
		he := min(h1, (g+1)*group)
		kg, vg := k[g*headStride:], v[g*headStride:]
		// Scores, a block of positions at a time for every head of the
		// group, so each K row comes from memory once and then from L1.
		for p0 := 0; p0 < nPos; p0 += attnBlock {
			p1 := min(nPos, p0+attnBlock)
			kb := kg[p0*stride:]
			for j := h; j < he; j++ {
				s := scratch[(j-h)*nPos+p0 : (j-h)*nPos+p1]
				if lvl == AVX512VNNI && j+1 < he { // two heads, each K row loaded once
					sb := scratch[(j+1-h)*nPos+p0:]
					attnScores2AVX512(&s[0], &sb[0], &q[j*headDim], &kb[0], p1-p0, stride, headDim, scale)
					j++
					continue
				}
				qj := q[j*headDim : (j+1)*headDim]
				switch lvl {
				case AVX512VNNI:
					attnScoresAVX512(&s[0], &qj[0], &kb[0], p1-p0, stride, headDim, scale)
				case AVX2:
					attnScoresAVX2(&s[0], &qj[0], &kb[0], p1-p0, stride, headDim, scale)
				default:
					attnScoresGeneric(s, qj, kb, stride, scale)
				}
			}
		}
		for j := h; j < he; j++ {
			softmaxAt(lvl, scratch[(j-h)*nPos:(j-h+1)*nPos])
			clear(out[j*headDim : (j+1)*headDim])
		}
		// out += p·V, block by block in position order (the same sums as
		// one pass: the accumulators are float32 either way).
		for p0 := 0; p0 < nPos; p0 += attnBlock {
			p1 := min(nPos, p0+attnBlock)
			vb := vg[p0*stride:]
			for j := h; j < he; j++ {
				s := scratch[(j-h)*nPos+p0 : (j-h)*nPos+p1]
				oj := out[j*headDim : (j+1)*headDim]
				if lvl == AVX512VNNI && j+1 < he && headDim%128 == 0 { // two heads, each V row loaded once
					sb := scratch[(j+1-h)*nPos+p0:]
					attnValues2AVX512(&oj[0], &out[(j+1)*headDim], &s[0], &sb[0], &vb[0], p1-p0, stride, headDim)
					j++
					continue
				}
				switch lvl {
				case AVX512VNNI:
					attnValuesAVX512(&oj[0], &s[0], &vb[0], p1-p0, stride, headDim)
				case AVX2:
					attnValuesAVX2(&oj[0], &s[0], &vb[0], p1-p0, stride, headDim)
				default:
					attnValuesGeneric(oj, s, vb, stride)
				}
			}
		}
		h = he
	}
}

// attnBlock is the number of KV positions Attention handles for all heads
// of a group before moving on: 64 rows of 128 floats are 32 KiB, which
// stay in L1 while the group's other heads reuse them.
const attnBlock = 64

func checkAttention(out, q, k, v []float32, nPos, nHeads, nKV, headDim, headStride, posStride int, scratch []float32, h0, h1 int) {
	bug := func(what string) { panic(shapeBug("AttentionKV", what)) }
	need := (nKV-1)*headStride + (nPos-1)*posStride + headDim
	switch {
	case nHeads <= 0 || nKV <= 0 || nHeads%nKV != 0:
		bug("nHeads " + itoa(nHeads) + " is not a positive multiple of nKV " + itoa(nKV))
	case headDim <= 0:
		bug("headDim " + itoa(headDim))
	case nPos <= 0:
		bug("nPos " + itoa(nPos) + ": a query attends to at least one position")
	case h0 < 0 || h1 < h0 || h1 > nHeads:
		bug("heads [" + itoa(h0) + ", " + itoa(h1) + ") outside [0, " + itoa(nHeads) + ")")
	case len(q) != nHeads*headDim || len(out) != nHeads*headDim:
		bug("len(q) = " + itoa(len(q)) + ", len(out) = " + itoa(len(out)) + ", want nHeads·headDim = " + itoa(nHeads*headDim))
	case headStride <= 0 || posStride <= 0:
		bug("KV strides " + itoa(headStride) + " per head, " + itoa(posStride) + " per position")
	case len(k) < need || len(v) < need:
		bug("len(k) = " + itoa(len(k)) + ", len(v) = " + itoa(len(v)) + ", want ≥ " + itoa(need) + " for " + itoa(nPos) + " positions of " + itoa(nKV) + " KV heads")
	case len(scratch) < AttentionScratch(nPos, nHeads, nKV, h0, h1):
		bug("len(scratch) = " + itoa(len(scratch)) + ", want ≥ " + itoa(AttentionScratch(nPos, nHeads, nKV, h0, h1)))
	}
}
