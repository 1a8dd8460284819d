package simd

// attnRows is phase 2 of Backend.Attention as a pool Task over parts, each
// normalising and rotating its rows' q and attending over their caches with
// the part's own q and score scratch (slot p of b.qkTmp, b.attnTmp). When
// a row is split (attnParts: fewer rows than threads, at least two threads
// a row, and attnSplitMinPos positions or more — one stream's decode step
// over a long cache), its heads go in split runs of whole KV groups, part
// p taking row p/split and run p%split, so the row's attention does not
// run on one thread while the others wait; otherwise part p takes a run of
// whole rows of about equal work (attnCuts). Rows, and heads within a row,
// are independent, so any split gives the single-threaded result, bit for
// bit; the scratch grows with the threads, not the rows (a long prefill
// has many). The Backend keeps one (b.attn), so a call allocates nothing.
type attnRows struct {
	b           *Backend
	out, qkv    []float32
	caches, pos []int32
	layer       int
	qn          []float32 // q norm gain
	rope        *ropeTable
	heads, kvh  int
	hd, maxN    int   // head width; score scratch per part
	split       int   // runs of KV groups per row (1: a part takes whole rows)
	cut         []int // with split 1, part p's rows are [cut[p], cut[p+1])
	eps, scale  float32
}

// attnSplitMinPos is the fewest cached positions (of the longest row) for
// which a call with fewer rows than threads splits the rows' heads over
// the threads: below it (the code predictor's ≤ 17 positions, a short
// prompt's first steps) a row's attention takes a few microseconds, about
// what handing half of it to another thread costs.
const attnSplitMinPos = 64

// attnSplit returns the runs of KV groups each of m rows is split into on
// threads threads, when the longest row attends to longest positions and
// there are kvh KV groups.
func attnSplit(m, threads, longest, kvh int) int {
	if m >= threads || longest < attnSplitMinPos {
		return 1
	}
	return max(1, min(threads/m, kvh))
}

// attnCuts sets cut (parts+1 bounds) to runs of rows of about equal work:
// a row attends to pos+1 positions, so a causal prefill's later rows cost
// more than its first ones, and equal counts of rows would leave the part
// with the first rows waiting. A row's work is counted as its positions
// plus attnRowCost for its q's norm and rotation.
func attnCuts(cut []int, pos []int32, parts int) {
	cut[0], cut[parts] = 0, len(pos)
	if parts == 1 { // one thread, or one row: nothing to weigh
		return
	}
	total := 0
	for _, p := range pos {
		total += int(p) + 1 + attnRowCost
	}
	r, done := 0, 0
	for part := 1; part < parts; part++ {
		// Part part starts at the row whose middle passes part/parts of
		// the work: a heavy row crossing the line goes to the side that
		// holds more of it (never all rows on one side of a batch of a
		// row a thread).
		for r < len(pos) {
			w := int(pos[r]) + 1 + attnRowCost
			if (2*done+w)*parts > 2*part*total {
				break
			}
			done += w
			r++
		}
		cut[part] = r
	}
}

// attnParts returns how Attention splits m rows over threads threads when
// the longest row attends to longest positions with kvh KV groups: the
// parts, and the runs of KV groups each row is split into (attnSplit; 1:
// parts of whole rows, at most one a row).
func attnParts(m, threads, longest, kvh int) (parts, split int) {
	split = attnSplit(m, threads, longest, kvh)
	return min(threads, m*split), split
}

// attnRowCost is a row's work besides its positions, in positions.
const attnRowCost = 16

// RunRange implements Task over parts [lo, hi).
func (t *attnRows) RunRange(lo, hi int) {
	for part := lo; part < hi; part++ {
		if t.split == 1 {
			t.rows(part, t.cut[part], t.cut[part+1], 0, t.heads)
			continue
		}
		r, run := part/t.split, part%t.split
		group := t.heads / t.kvh
		t.rows(part, r, r+1, run*t.kvh/t.split*group, (run+1)*t.kvh/t.split*group)
	}
}

// rows runs heads [h0, h1) of rows [r0, r1) with scratch slot part.
func (t *attnRows) rows(part, r0, r1, h0, h1 int) {
	b := t.b
	qw, kw := t.heads*t.hd, t.kvh*t.hd
	row := qw + 2*kw
	q := b.qkTmp[part*qw : (part+1)*qw]
	qh := q[h0*t.hd : h1*t.hd]
	for r := r0; r < r1; r++ {
		c := &b.objs[t.caches[r]]
		p := int(t.pos[r])
		copy(qh, t.qkv[r*row+h0*t.hd:r*row+h1*t.hd])
		rmsNormHeads(qh, t.qn, t.eps)
		ropeApply(t.rope, qh, h1-h0, p)
		n := p + 1
		scores := b.attnTmp[part*t.maxN : part*t.maxN+n*(t.heads/t.kvh)]
		attend(t.out[r*qw:(r+1)*qw], q, c.kv[2*t.layer][:n*kw], c.kv[2*t.layer+1][:n*kw], n, t.heads, t.kvh, t.hd, t.scale, scores, h0, h1)
	}
}
