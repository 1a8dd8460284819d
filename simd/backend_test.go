package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHadamardBlocksIsOrthonormalInvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cols := range []int{1, 3, 32, 96, 1024, 3072} {
		x := make([]float32, 2*cols)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		y := append([]float32(nil), x...)
		hadamardBlocks(y, 2, cols)
		var nx, ny float64
		for i := range x {
			nx += float64(x[i]) * float64(x[i])
			ny += float64(y[i]) * float64(y[i])
		}
		if math.Abs(nx-ny) > 1e-4*nx {
			t.Errorf("cols %d: |Hx|² = %v, |x|² = %v", cols, ny, nx)
		}
		hadamardBlocks(y, 2, cols)
		for i := range x {
			if math.Abs(float64(y[i]-x[i])) > 1e-5 {
				t.Fatalf("cols %d: H(Hx)[%d] = %v, x = %v", cols, i, y[i], x[i])
			}
		}
	}
	// The 2-point case by hand: H = [[1 1] [1 -1]]/√2.
	v := []float32{3, 1}
	hadamardBlocks(v, 1, 2)
	if math.Abs(float64(v[0])-4/math.Sqrt2) > 1e-6 || math.Abs(float64(v[1])-2/math.Sqrt2) > 1e-6 {
		t.Errorf("H[3 1] = %v, want [%v %v]", v, 4/math.Sqrt2, 2/math.Sqrt2)
	}
}

// TestBackendMatMulPrecisions checks each precision's product against a
// float64 dense product: fp32 to rounding, int8 (rotated blocks) to the
// quantization error, and per-tensor int8 worse than block int8 on an input
// with an outlier channel.
func TestBackendMatMulPrecisions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols, m = 48, 256, 3
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64() / 16)
	}
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	x[7] = 60 // an outlier channel in row 0
	want := make([]float64, m*rows)
	var norm float64
	for i := 0; i < m; i++ {
		for o := 0; o < rows; o++ {
			var s float64
			for k := 0; k < cols; k++ {
				s += float64(x[i*cols+k]) * float64(w[o*cols+k])
			}
			want[i*rows+o] = s
			norm = math.Max(norm, math.Abs(s))
		}
	}
	errOf := func(prec string, threads int) float64 {
		b := NewBackend(threads)
		defer b.Close()
		h, err := b.NewMatrix(rows, cols, w, nil, prec)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float32, m*rows)
		if err := b.MatMul(y, x, m, h); err != nil {
			t.Fatal(err)
		}
		var e float64
		for i := range y {
			e = math.Max(e, math.Abs(float64(y[i])-want[i]))
		}
		return e / norm
	}
	if e := errOf("fp32", 1); e > 1e-6 {
		t.Errorf("fp32 relative error %g", e)
	}
	e8 := errOf("int8", 1)
	if e8 > 0.02 {
		t.Errorf("int8 relative error %g > 0.02", e8)
	}
	if e2 := errOf("int8", 2); e2 != e8 {
		t.Errorf("int8 on 2 threads: error %g, on 1 thread %g (want bit-identical results)", e2, e8)
	}
	if et := errOf("int8-pertensor", 1); et <= e8 {
		t.Errorf("per-tensor int8 error %g not above block int8 %g", et, e8)
	}
	// 4 bits: about 16 times int8's step; within 0.2 of the largest output,
	// above int8, and bit-identical on 2 threads.
	for _, prec := range []string{PrecInt4, PrecInt4Uniform} {
		e4 := errOf(prec, 1)
		if e4 > 0.2 || e4 <= e8 {
			t.Errorf("%s relative error %g: want in (int8's %g, 0.2]", prec, e4, e8)
		}
		if e2 := errOf(prec, 2); e2 != e4 {
			t.Errorf("%s on 2 threads: error %g, on 1 thread %g (want bit-identical results)", prec, e2, e4)
		}
	}
}

func TestBackendThreadsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols, m = 100, 64, 5
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	run := func(threads int, prec string) []float32 {
		b := NewBackend(threads)
		defer b.Close()
		h, err := b.NewMatrix(rows, cols, w, nil, prec)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float32, m*rows)
		if err := b.MatMul(y, x, m, h); err != nil {
			t.Fatal(err)
		}
		return y
	}
	for _, prec := range []string{"fp32", "int8", PrecInt4} {
		a, c := run(1, prec), run(2, prec)
		for i := range a {
			if a[i] != c[i] {
				t.Fatalf("%s: y[%d] = %v on 1 thread, %v on 2", prec, i, a[i], c[i])
			}
		}
	}
}

// TestBackendAttentionThreadsAgree checks that Attention's rows split over
// the pool give the single-threaded result bit for bit: 6 rows over 3
// caches, two of them a prefill of positions 0..2 of one cache.
func TestBackendAttentionThreadsAgree(t *testing.T) {
	c := backendAttnCase{heads: 4, kvh: 2, hd: 16, maxPos: 8, filled: []int32{0, 5, 3},
		caches: []int{0, 0, 0, 1, 2, 2}, pos: []int32{0, 1, 2, 5, 3, 4}}
	c.agree(t, 1, 3)
}

// TestBackendAttentionSplitsHeads checks the split for fewer rows than
// threads over long caches (a decode step of one or two streams): the
// heads of a row, in runs of whole KV groups over the threads, give the
// single-threaded result bit for bit — one row on 2, 3 and 4 threads (2,
// 3 and 4 runs of 4 KV groups: uneven runs included), and two rows on 4
// threads, one of them short (the split is the call's: both rows are
// split). attnParts is checked to choose the split for those shapes, so
// the comparisons run the split path.
func TestBackendAttentionSplitsHeads(t *testing.T) {
	one := backendAttnCase{heads: 8, kvh: 4, hd: 16, maxPos: 96, filled: []int32{attnSplitMinPos + 17},
		caches: []int{0}, pos: []int32{attnSplitMinPos + 17}}
	for _, threads := range []int{2, 3, 4} {
		one.agree(t, 1, threads)
	}
	two := backendAttnCase{heads: 8, kvh: 4, hd: 16, maxPos: 96, filled: []int32{80, 5},
		caches: []int{0, 1}, pos: []int32{80, 5}}
	two.agree(t, 1, 4)
	for _, c := range []struct{ m, threads, longest, parts, split int }{
		{1, 2, attnSplitMinPos + 18, 2, 2}, {1, 3, attnSplitMinPos + 18, 3, 3}, {1, 4, attnSplitMinPos + 18, 4, 4},
		{2, 4, 81, 4, 2}, {2, 2, 81, 2, 1}, {1, 4, 17, 1, 1}, {5, 2, 300, 2, 1},
	} {
		if parts, split := attnParts(c.m, c.threads, c.longest, 4); parts != c.parts || split != c.split {
			t.Errorf("attnParts(%d rows, %d threads, %d positions, 4 groups) = %d parts, split %d; want %d, %d", c.m, c.threads, c.longest, parts, split, c.parts, c.split)
		}
	}
	if got := attnSplit(1, 4, attnSplitMinPos, 4); got != 4 {
		t.Errorf("attnSplit(1 row, 4 threads, %d positions, 4 groups) = %d, want 4", attnSplitMinPos, got)
	}
	if got := attnSplit(1, 4, attnSplitMinPos-1, 4); got != 1 {
		t.Errorf("attnSplit(1 row, 4 threads, %d positions) = %d, want 1 (too short to split)", attnSplitMinPos-1, got)
	}
	if got := attnSplit(1, 8, 100, 2); got != 2 {
		t.Errorf("attnSplit(1 row, 8 threads, 2 groups) = %d, want 2 (at most one run a group)", got)
	}
}

// backendAttnCase is one Attention call of a backend test: rows at positions pos
// of caches (indexes into caches whose positions below filled were
// written first, one row at a time).
type backendAttnCase struct {
	heads, kvh, hd, maxPos int
	filled                 []int32
	caches                 []int
	pos                    []int32
}

// agree runs the case on threads a and on threads b and fails on any
// output bit that differs, or on an output head left all zero.
func (c backendAttnCase) agree(t *testing.T, a, b int) {
	t.Helper()
	x, y := c.run(t, a), c.run(t, b)
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			t.Fatalf("out[%d] = %v on %d thread(s), %v on %d", i, x[i], a, y[i], b)
		}
	}
	for h := 0; h < len(y)/c.hd; h++ {
		zero := true
		for _, v := range y[h*c.hd : (h+1)*c.hd] {
			zero = zero && v == 0
		}
		if zero {
			t.Fatalf("row %d head %d is all zero on %d threads: not computed", h/c.heads, h%c.heads, b)
		}
	}
}

// run fills the caches and returns the case's output on threads threads.
func (c backendAttnCase) run(t *testing.T, threads int) []float32 {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	row := (c.heads + 2*c.kvh) * c.hd
	m := len(c.pos)
	qkv := make([]float32, m*row)
	for i := range qkv {
		qkv[i] = float32(r.NormFloat64())
	}
	gain := make([]float32, c.hd)
	for i := range gain {
		gain[i] = 0.5 + float32(r.Float64())
	}
	b := NewBackend(threads)
	defer b.Close()
	qn, err := b.NewVector(gain)
	if err != nil {
		t.Fatal(err)
	}
	kn, err := b.NewVector(gain)
	if err != nil {
		t.Fatal(err)
	}
	rope, err := b.NewRope(c.hd, c.maxPos, 1e6)
	if err != nil {
		t.Fatal(err)
	}
	hs := make([]int32, len(c.filled))
	for i := range hs {
		if hs[i], err = b.NewKVCache(1, c.kvh, c.hd, c.maxPos); err != nil {
			t.Fatal(err)
		}
	}
	// Fill the earlier positions of each cache one row at a time.
	fr := rand.New(rand.NewPCG(9, 10))
	fill := make([]float32, row)
	for i, upto := range c.filled {
		for p := int32(0); p < upto; p++ {
			for j := range fill {
				fill[j] = float32(fr.NormFloat64())
			}
			if err := b.Attention(make([]float32, c.heads*c.hd), fill, 1, []int32{hs[i]}, []int32{p}, 0, qn, kn, rope, c.heads, 1e-6); err != nil {
				t.Fatal(err)
			}
		}
	}
	ch := make([]int32, m)
	for i, k := range c.caches {
		ch[i] = hs[k]
	}
	out := make([]float32, m*c.heads*c.hd)
	if err := b.Attention(out, append([]float32(nil), qkv...), m, ch, c.pos, 0, qn, kn, rope, c.heads, 1e-6); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAttnCutsBalance checks attnCuts against its definition: bounds that
// start at 0, end at m and never decrease, and parts whose work (positions
// plus attnRowCost a row) is within one row's work of an equal share — for
// causal prefills (whose later rows cost more: equal row counts would give
// the last part 3/4 of the work of 256 rows on two threads), a batch of
// unequal streams, and more parts than rows.
func TestAttnCutsBalance(t *testing.T) {
	causal := func(n int) []int32 {
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(i)
		}
		return p
	}
	cases := []struct {
		pos   []int32
		parts int
	}{
		{causal(256), 2}, {causal(256), 3}, {causal(1000), 4}, {causal(5), 2},
		{[]int32{900, 3, 3, 3, 40, 700}, 2}, {[]int32{7}, 1}, {[]int32{1, 2}, 4},
		{[]int32{500, 1000, 1000, 1000}, 4}, {[]int32{3, 10}, 2},
	}
	for _, c := range cases {
		cut := make([]int, c.parts+1)
		attnCuts(cut, c.pos, c.parts)
		if cut[0] != 0 || cut[c.parts] != len(c.pos) {
			t.Fatalf("%d rows, %d parts: cuts %v do not run from 0 to %d", len(c.pos), c.parts, cut, len(c.pos))
		}
		work := func(r int) int { return int(c.pos[r]) + 1 + attnRowCost }
		total, most := 0, 0
		for r := range c.pos {
			total += work(r)
			most = max(most, work(r))
		}
		for p := 0; p < c.parts; p++ {
			if cut[p+1] < cut[p] {
				t.Fatalf("%d rows, %d parts: cuts %v decrease", len(c.pos), c.parts, cut)
			}
			w := 0
			for r := cut[p]; r < cut[p+1]; r++ {
				w += work(r)
			}
			if w*c.parts > total+most*c.parts {
				t.Errorf("%d rows, %d parts: part %d (rows %d..%d) has work %d, share %d + a row %d", len(c.pos), c.parts, p, cut[p], cut[p+1], w, total/c.parts, most)
			}
			// A batch of a row a part (a decode step of as many streams
			// as threads): no part may hold two rows while another is
			// empty — equal counts would be better.
			if len(c.pos) == c.parts && cut[p+1]-cut[p] != 1 {
				t.Errorf("%d rows on %d parts: cuts %v, want a row a part", len(c.pos), c.parts, cut)
			}
		}
	}
}
