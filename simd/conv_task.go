package simd

import "unsafe"

// convJob is one strided GEMM of a conv call: rows i < m of x (stride ldx)
// into y (stride ldy), with its own pad for the rows left over.
type convJob struct {
	y, x, pad []float32
	xb        []uint16 // x rounded to bf16 (the VDPBF16PS path), or nil
	ldy, ldx  int
	m         int
	nx        int // the VDPBF16PS path: inputs of x the rows read (convTask.span)
}

// convTask runs a conv call's jobs over output panels [lo, hi) of w.
//
// At the AVX2 and AVX-512 levels the rows of every job are listed by
// pointer (yp, xp; padded to a multiple of 6 with the last row again) and
// go through the row-list kernel 6 at a time, whatever job they belong to,
// so small jobs (a dilated conv's phases, a batch's segments) waste no
// kernel rows; a list of only one or two rows goes through the AVX2
// one-row kernel, which sums each output in the same order (the VDPBF16PS
// path pads those to 6 too).
type convTask struct {
	l    Level
	rows bool            // the AVX2 row list (listRows, runRows)
	g    int             // rows of the grouped kernel (1: the generic loop)
	kern convGroupKernel // the grouped kernel when g > 1
	w    *F32Matrix      // the dims, and the fp32 weights when wb is nil
	wb   []uint16        // bf16 weights (conv_bf16.go), or nil
	jobs []convJob
	bias []float32 // nil, or added to every job row's outputs
	// addY: the outputs are added to (y += conv), not written: a residual
	// add fused into the conv (the VDPBF16PS path only: fused).
	addY bool
	// dot: bf16 weights computed with VDPBF16PS (bf16dot.go); each job's
	// x is then rounded to bf16 into xb (same offsets), read by the kernel.
	dot *bf16Panels
	xb  []uint16
	// taps, tapSkip: the row list reads each row's K in taps of K/taps
	// inputs, each tap tapSkip inputs past the end of the one before (a
	// dilated conv's taps read in place, rows apart in x: see convF32);
	// taps = 1, tapSkip = 0 otherwise.
	taps, tapSkip int

	yp, xp         []uintptr   // AVX2: each listed row's output and input
	nlist          int         // listed rows before the padding to a multiple of 6
	rowJob, rowIdx []int32     // AVX2: each listed row's job and row in it
	pt             panelTile   // the partial panel's tile of a panel split
	rowTiles       []panelTile // a row split's: one per thread, claimed
	gtiles         []float32   // grouped kernel: a tile per panel (convGemmGroups)
}

// panelTile holds a partial panel's outputs of 6 rows (the kernel writes
// whole panels), for tileOut to copy the real columns out; a row split
// gives each thread its own (claimFree).
type panelTile struct {
	claimed
	tile [6 * PanelRows]float32
	tp   [6]uintptr // rows of tile
}

// rows returns the row pointers of the tile, set.
func (pt *panelTile) rows() *uintptr {
	for r := range pt.tp {
		pt.tp[r] = uintptr(unsafe.Pointer(&pt.tile[r*PanelRows]))
	}
	return &pt.tp[0]
}

// RunRange implements Task over panels [lo, hi): a chunk of panels at a
// time through every job, so a dilated conv's phases (or a batch's
// segments) share each weight panel while it is in cache.
func (t *convTask) RunRange(lo, hi int) {
	if t.rows {
		t.runRows(lo, hi)
		return
	}
	chunk := max(1, convChunkBytes/(64*t.w.cols))
	for pc := lo; pc < hi; pc += chunk {
		pe := min(pc+chunk, hi)
		for i := range t.jobs {
			j := &t.jobs[i]
			switch {
			case t.dot != nil:
				convGemmBF16DotGeneric(j.y, j.ldy, j.xb, j.ldx, j.m, t.dot, pc, pe)
			case t.wb != nil:
				convGemmBF16Generic(j.y, j.ldy, j.x, j.ldx, j.m, t.w, t.wb, pc, pe)
			case t.g > 1:
				convGemmGroups(t.g, t.kern, j.y, j.ldy, j.x, j.ldx, j.m, t.w, pc, pe, j.pad, t.gtiles)
			default:
				convGemmGeneric(j.y, j.ldy, j.x, j.ldx, j.m, t.w, pc, pe)
			}
		}
		t.addBias(pc, pe)
	}
}

// addBias adds the bias to output columns of panels [pc, pe) of every job
// row, after their sums (y = Σ + bias, as a separate pass would), while
// they are in cache.
func (t *convTask) addBias(pc, pe int) {
	if t.bias == nil {
		return
	}
	c0, c1 := pc*PanelRows, min(pe*PanelRows, t.w.rows)
	bs := t.bias[c0:c1]
	for i := range t.jobs {
		j := &t.jobs[i]
		for r := 0; r < j.m; r++ {
			Add(j.y[r*j.ldy+c0:r*j.ldy+c1], bs)
		}
	}
}

// listRows fills yp, xp, rowJob and rowIdx from the jobs (AVX2), checking
// that every row the kernel will touch lies inside its job's slices. It
// runs on the calling thread before the pool starts (a 16-frame batch's
// last block lists 30,720 rows), so each row costs four stores.
func (t *convTask) listRows() {
	n := t.w.rows
	total := 0
	for ji := range t.jobs {
		j := &t.jobs[ji]
		if j.m < 1 || len(j.x) < t.span(j) || len(j.y) < (j.m-1)*j.ldy+n || (t.dot != nil && len(j.xb) < t.span(j)) {
			panic("omni: BUG: conv job rows outside its slices")
		}
		total += j.m
	}
	// A list of one or two rows goes through the one-row kernel (runRows):
	// a weight-bound pass, where computing each row six times would cost
	// more than the one-row kernel's latency-bound FMA chains. Any other
	// list is padded to a multiple of 6 (the last row again): among full
	// groups the 6-row kernel's throughput beats one-row passes (2 chains
	// per row).
	few := 2 // lists this short run the one-row kernel (none for dot)
	if t.dot != nil {
		few = 0
	}
	size := total
	if total > few {
		size = (total + 5) / 6 * 6
	}
	t.yp, t.xp = resized(t.yp, size), resized(t.xp, size)
	t.rowJob, t.rowIdx = resized(t.rowJob, size), resized(t.rowIdx, size)
	r := 0
	for ji := range t.jobs {
		j := &t.jobs[ji]
		y, dy := uintptr(unsafe.Pointer(&j.y[0])), uintptr(4*j.ldy)
		x, dx := uintptr(unsafe.Pointer(&j.x[0])), uintptr(4*j.ldx)
		if t.dot != nil {
			x, dx = uintptr(unsafe.Pointer(&j.xb[0])), uintptr(2*j.ldx)
		}
		yp, xp := t.yp[r:r+j.m], t.xp[r:r+j.m]
		rj, ri := t.rowJob[r:r+j.m], t.rowIdx[r:r+j.m]
		for i := range yp {
			yp[i], xp[i], rj[i], ri[i] = y, x, int32(ji), int32(i)
			y, x = y+dy, x+dx
		}
		r += j.m
	}
	for ; r < size; r++ {
		t.yp[r], t.xp[r], t.rowJob[r], t.rowIdx[r] = t.yp[total-1], t.xp[total-1], t.rowJob[total-1], t.rowIdx[total-1]
	}
	t.nlist = total
}

// resized returns s with length n, reusing its array when it holds n.
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// runRows is RunRange at the AVX2 level: the listed rows, 6 at a time,
// against panel chunks of [lo, hi). A padding row repeats the last row, so
// it writes the same values to the same place in the same call. The last,
// partial panel (rows not a multiple of 16) goes through the tile; only the
// thread given that panel touches it.
func (t *convTask) runRows(lo, hi int) { t.runRowsIn(lo, hi, 0, len(t.yp), &t.pt) }

// runRowsIn is runRows for the listed rows [r0, r1) only (r0 a multiple of
// 6, r1 one too or the list's end), adding the bias to those rows only, a
// partial panel going through pt (a thread's own when rows are split).
func (t *convTask) runRowsIn(lo, hi, r0, r1 int, pt *panelTile) {
	w := t.w
	k := w.cols
	pb := PanelRows * k
	if t.dot != nil {
		k = t.dot.kp // the kernel's steps: pairs
		pb = PanelRows * 2 * k
	}
	full := w.rows / PanelRows
	chunk := rowChunk(t.l, w.cols)
	// The fp32 and VDPBF16PS AVX-512 kernels take K in blocks (kblk
	// inputs, or pairs, of 4 panels stay in L2 across the row groups); the
	// others take K whole.
	kblk := k
	if t.l == AVX512VNNI && t.wb == nil && t.dot == nil && !t.addY && len(t.yp) > 2 && k > convKBlock {
		kblk, chunk = convKBlock, 4
		if tk := k / t.taps; t.taps > 1 {
			kblk = max(1, convKBlock/tk) * tk // whole taps
		}
	}
	for pc := lo; pc < hi; pc += chunk {
		n := min(chunk, hi-pc)
		nf := max(0, min(n, full-pc))
		for kb := 0; kb < k && nf > 0; kb += kblk {
			for g0 := r0; g0 < r1; {
				g := 6
				if r1-g0 < 6 && t.dot == nil {
					g = 1 // the last one or two rows
				}
				t.rowsKernel(g, &t.yp[g0], &t.xp[g0], pc*pb, k, nf, 4*pc*PanelRows, kb, min(kblk, k-kb), true)
				g0 += g
			}
		}
		for p := pc + nf; p < pc+n; p++ {
			for g0 := r0; g0 < r1; {
				g := 6
				if r1-g0 < 6 && t.dot == nil {
					g = 1
				}
				tp := pt.rows()
				for kb := 0; kb < k; kb += kblk {
					t.rowsKernel(g, tp, &t.xp[g0], p*pb, k, 1, 0, kb, min(kblk, k-kb), false)
				}
				nr := w.rows - p*PanelRows
				for r := 0; r < g && g0+r < t.nlist; r++ {
					j := &t.jobs[t.rowJob[g0+r]]
					i := int(t.rowIdx[g0+r])
					t.tileOut(j.y[i*j.ldy+p*PanelRows:][:nr], pt.tile[r*PanelRows:][:nr], p*PanelRows)
				}
				g0 += g
			}
		}
		switch {
		case t.fused():
			// the kernel and tileOut added the bias
		case r0 == 0 && r1 == len(t.yp):
			t.addBias(pc, pc+n)
		default:
			t.addBiasRows(pc, pc+n, r0, min(r1, t.nlist))
		}
	}
}

// span returns the inputs job j's rows read from j.x: the last row's K,
// its taps tapSkip apart when the conv is tapped.
func (t *convTask) span(j *convJob) int {
	return (j.m-1)*j.ldx + t.w.cols + (t.taps-1)*t.tapSkip
}

// fused reports whether the kernel adds the bias and the residual itself
// (the VDPBF16PS row list) instead of the passes after it.
func (t *convTask) fused() bool { return t.dot != nil && t.rows }

// tileOut writes a partial panel's outputs from the tile to y (columns
// from c0 of the weights' outputs): on the fused path with the bias added,
// then y's old values when addY, each rounded as the kernel's epilogue
// rounds it; else as they are (addBias follows).
func (t *convTask) tileOut(y, tile []float32, c0 int) {
	if !t.fused() {
		copy(y, tile)
		return
	}
	for c, v := range tile {
		if t.bias != nil {
			v += t.bias[c0+c]
		}
		if t.addY {
			v += y[c]
		}
		y[c] = v
	}
}

// addBiasRows is addBias for the listed rows [r0, r1) (none of them a
// padding row).
func (t *convTask) addBiasRows(pc, pe, r0, r1 int) {
	if t.bias == nil {
		return
	}
	c0, c1 := pc*PanelRows, min(pe*PanelRows, t.w.rows)
	bs := t.bias[c0:c1]
	for r := r0; r < r1; r++ {
		j := &t.jobs[t.rowJob[r]]
		i := int(t.rowIdx[r])
		Add(j.y[i*j.ldy+c0:i*j.ldy+c1], bs)
	}
}

// convRowTask splits a conv call's listed rows over the pool in blocks of
// rows (a multiple of 6), each block through every panel: for convs with
// too few output panels to keep every thread busy (the encoder's 32- and
// 64-channel convs at 24 kHz). Each output's sum is the same whichever rows
// run together, so the split changes no bits.
type convRowTask struct {
	t     *convTask
	block int
	// round: each block rounds its own rows' inputs to bf16 first (the
	// VDPBF16PS path when every row reads only its own input: rowLocal),
	// instead of a pass over the whole input before the conv.
	round bool
}

// RunRange implements Task over row blocks [lo, hi).
func (rt *convRowTask) RunRange(lo, hi int) {
	t := rt.t
	r0, r1 := lo*rt.block, min(hi*rt.block, len(t.yp))
	if rt.round {
		// The padding rows repeat the last row, which is in the same
		// (last) block: a block is a multiple of 6 rows. Consecutive rows
		// of one job are rounded in one call (with the gaps between them,
		// which only this block's rows border).
		K := t.w.cols
		for r, end := r0, min(r1, t.nlist); r < end; {
			ji, i0 := t.rowJob[r], int(t.rowIdx[r])
			n := 1
			for r+n < end && t.rowJob[r+n] == ji && int(t.rowIdx[r+n]) == i0+n {
				n++
			}
			j := &t.jobs[ji]
			a, e := i0*j.ldx, (i0+n-1)*j.ldx+K
			toBF16(t.l, j.xb[a:e], j.x[a:e])
			r += n
		}
	}
	pt := &t.pt
	if t.w.rows%PanelRows != 0 {
		pt = claimFree(t.rowTiles)
		defer pt.release()
	}
	t.runRowsIn(0, t.w.panels, r0, r1, pt)
}

// rowLocal reports whether every listed row of the VDPBF16PS path reads
// only its own input row (K even, rows K or more apart, no taps), so
// rounding a row block's inputs touches no other block's.
func (t *convTask) rowLocal() bool {
	K := t.w.cols
	if t.dot == nil || t.taps != 1 || K%2 != 0 {
		return false
	}
	for i := range t.jobs {
		if t.jobs[i].ldx < K {
			return false
		}
	}
	return true
}

// convRowBlocks returns the row block of a row split of t over threads, or
// 0 when the panel split suffices (at least two chunks per thread) or the
// rows cannot be split (a list too short). A partial panel goes through a
// tile per thread (rowTiles).
func convRowBlocks(t *convTask, chunk, threads int) int {
	if !t.rows || (t.w.panels+chunk-1)/chunk >= 2*threads {
		return 0
	}
	n := len(t.yp)
	if n < 24*threads {
		return 0
	}
	// About 8 blocks per thread, claimed dynamically.
	return max(6, (n+8*threads-1)/(8*threads)/6*6)
}

// convKBlock is the inputs per block of K the fp32 AVX-512 row kernel
// runs at once: 4 panels × 1024 inputs × 64 bytes = 256 KB of weights,
// read from L2 by every row group.
const convKBlock = 1024

// rowChunk returns the panels of k inputs the row list runs through every
// row before moving on: about convChunkBytes of weights (they stay in cache
// across the rows), and at AVX-512 a multiple of the kernel's 4 panels per
// pass (one panel per pass would be bound by its loads and its FMA chains).
func rowChunk(l Level, k int) int {
	chunk := max(1, convChunkBytes/(4*PanelRows*k))
	if l == AVX512VNNI {
		chunk = max(4, chunk/4*4)
	}
	return chunk
}

// rowsKernel runs the g-row (6 or 1) row-list kernel of the task's weights
// on np panels from weight element off.
//
// The fp32 and VDPBF16PS AVX-512 kernels run inputs (pairs) [kb, kb+kn)
// of the k (accumulating onto the outputs of the earlier blocks); every
// other kernel is called with kb = 0, kn = k. A tapped conv's blocks hold
// whole taps, and a block's inputs start past the taps before it, each
// tapSkip further. With epi, the VDPBF16PS kernel adds the bias and the
// residual (addY) before its stores, after the last block (the fused
// path; tileOut does it for a partial panel).
func (t *convTask) rowsKernel(g int, yp, xp *uintptr, off, k, np, yoff, kb, kn int, epi bool) {
	tk, skip, xoff := kn, 0, kb // inputs (pairs) per tap, inputs skipped after one, the block's first input
	if t.taps > 1 {
		tk = k / t.taps
		if kb%tk != 0 || kn%tk != 0 {
			panic("omni: BUG: a block of K that splits a tap")
		}
		skip = t.tapSkip
		if t.dot != nil {
			skip /= 2 // pairs
		}
		xoff = kb + kb/tk*skip
	}
	load := 0
	if kb > 0 {
		load = 1
	}
	if t.dot != nil {
		_ = t.dot.dot[off+np*PanelRows*2*k-1]
		var bias unsafe.Pointer
		add := 0
		if epi && kb+kn == k {
			if t.bias != nil {
				_ = t.bias[yoff/4+np*PanelRows-1]
				bias = unsafe.Pointer(&t.bias[0])
			}
			if t.addY {
				add = 1
			}
		}
		gemmBF16Dot6RowsAVX512(yp, xp, unsafe.Pointer(&t.dot.dot[off+kb*2*PanelRows]), kn, np, yoff, k, xoff, load, bias, add, tk, 4*skip)
		return
	}
	if t.wb != nil {
		_ = t.wb[off+np*PanelRows*k-1]
		if g == 6 {
			gemmBF16x6RowsAVX2(yp, xp, unsafe.Pointer(&t.wb[off]), k, np, yoff, tk, 4*skip)
		} else {
			gemmBF16x1RowsAVX2(yp, xp, unsafe.Pointer(&t.wb[off]), k, np, yoff, tk, 4*skip)
		}
		return
	}
	_ = t.w.data[off+np*PanelRows*k-1]
	switch {
	case g == 6 && t.l == AVX512VNNI:
		gemmF32x6RowsAVX512(yp, xp, unsafe.Pointer(&t.w.data[off+kb*PanelRows]), kn, np, yoff, k, xoff, load, tk, 4*skip)
	case g == 6:
		gemmF32x6RowsAVX2(yp, xp, unsafe.Pointer(&t.w.data[off]), k, np, yoff, tk, 4*skip)
	default:
		gemmF32x1RowsAVX2(yp, xp, unsafe.Pointer(&t.w.data[off]), k, np, yoff, tk, 4*skip)
	}
}

// convGroupHook replaces the grouped level's kernel (tests: an emulated
// kernel checks the grouped path's plumbing on any machine).
type convGroupHook struct {
	g    int
	kern convGroupKernel
}

// convGrouping returns the grouped kernel the active level uses (g = 1:
// none; the AVX2 level's row list is not grouped).
func (b *Backend) convGrouping() (int, convGroupKernel) {
	if b.convBF {
		return 1, nil // bf16: the row list at AVX2 and above, else generic
	}
	if b.groupHook != nil {
		return b.groupHook.g, b.groupHook.kern
	}
	return 1, nil // the row list at AVX2 and above, else generic
}

// rowListed reports whether conv jobs go through the row list (AVX2 and
// AVX-512; bf16 weights run the AVX2 row kernel at both).
func (b *Backend) rowListed() bool {
	return (b.convBF || b.groupHook == nil) && haveAsm && active != Generic
}

// convBegin starts setting up a conv call on c's weights.
func (b *Backend) convBegin(c *convWeights) {
	b.convJobs, b.convPad = b.convJobs[:0], b.convPad[:0]
	b.convBF = c.bf != nil
}

// runConvJobs runs b.convJobs against w on the pool, split by panels, and
// adds bias (nil: none) to their outputs. With a grouped kernel, the rows
// of small jobs (fewer than two groups: a dilated conv's short phases, a
// batch's short segments) were set aside by addConvJob; they are copied
// into one packed job (input rows K apart, zero rows up to a whole group),
// computed into a scratch, and copied to their places, so they fill groups
// instead of padding one each. Each row's sum is the same either way.
// taps > 1 (the row list only): each row's K is read in taps of K/taps
// inputs, each tapSkip inputs past the end of the one before (convF32's
// dilated convs); taps = 1, tapSkip = 0 otherwise.
func (b *Backend) runConvJobs(c *convWeights, bias []float32, addY bool, taps, tapSkip int) {
	t := &b.convT
	w, wb := c.gemmWeights()
	t.l, t.w, t.wb, t.bias, t.addY = active, w, wb, bias, addY
	t.g, t.kern = b.convGrouping()
	k, out := w.cols, w.rows
	R := len(b.convSmall)
	if R > 0 {
		Rp := (R + t.g - 1) / t.g * t.g
		if cap(b.convSmallX) < Rp*k {
			b.convSmallX = make([]float32, Rp*k)
		}
		if cap(b.convSmallY) < Rp*out {
			b.convSmallY = make([]float32, Rp*out)
		}
		px, py := b.convSmallX[:Rp*k], b.convSmallY[:Rp*out]
		for r, row := range b.convSmall {
			copy(px[r*k:(r+1)*k], row.x[:k])
		}
		clear(px[R*k:])
		b.convJobs = append(b.convJobs, convJob{y: py, x: px, ldy: out, ldx: k, m: Rp})
	}
	t.jobs = b.convJobs
	t.dot = nil
	t.taps, t.tapSkip = taps, tapSkip
	if t.taps > 1 && !(b.rowListed() && R == 0) {
		panic("omni: BUG: a tapped conv off the row list")
	}
	if c.dotPath() {
		t.dot = c.bf
		b.layoutJobsBF16(c.bf)
	}
	if t.g > 1 {
		if n := convTileLen(t.g, w); cap(t.gtiles) < n {
			t.gtiles = make([]float32, n)
		}
		t.gtiles = t.gtiles[:cap(t.gtiles)]
	}
	if t.rows = b.rowListed(); t.rows {
		t.listRows()
	}
	if addY && !t.fused() {
		panic("omni: BUG: a residual add fused into a conv off the VDPBF16PS path")
	}
	// The split over the pool: chunks of panels claimed dynamically (on a
	// shared machine a thread that is descheduled holds up the call by one
	// chunk at most; a static split waited for its whole half), or blocks
	// of rows when there are too few panels (convRowBlocks). Which thread
	// computes a panel or a row changes no bits.
	chunk, blk := 1, 0
	if b.pool != nil {
		th := b.pool.Active()
		chunk = max(1, min(convChunkBytes/(64*w.cols), w.panels/th))
		if t.rows {
			chunk = min(rowChunk(t.l, w.cols), max(chunk, w.panels/(4*th)))
			if t.l == AVX512VNNI {
				chunk = max(4, chunk/4*4)
			}
		}
		blk = convRowBlocks(t, chunk, th)
	}
	roundInBlocks := blk > 0 && t.rowLocal()
	if t.dot != nil && !roundInBlocks {
		b.roundJobsBF16()
	}
	switch {
	case blk > 0:
		if w.rows%PanelRows != 0 && len(t.rowTiles) < b.pool.Threads() {
			t.rowTiles = make([]panelTile, b.pool.Threads())
		}
		rt := &b.convRowT
		rt.t, rt.block, rt.round = t, blk, roundInBlocks
		b.pool.mu.Lock()
		b.pool.runDynamic(rt, (len(t.yp)+blk-1)/blk, 1)
		b.pool.mu.Unlock()
		rt.t = nil
	case b.pool != nil && w.panels > 1:
		b.pool.mu.Lock()
		b.pool.runDynamic(t, w.panels, chunk)
		b.pool.mu.Unlock()
	default:
		t.RunRange(0, w.panels)
	}
	for r, row := range b.convSmall {
		copy(row.y[:out], b.convSmallY[r*out:(r+1)*out])
	}
	b.convSmall = b.convSmall[:0]
	t.w, t.wb, t.jobs, t.bias, t.kern, t.dot, t.addY = nil, nil, nil, nil, nil, nil, false
}

// layoutJobsBF16 gives each job its region of b.convXB for its inputs
// rounded to bf16 (at the job's own offsets, with the pair that pads an
// odd K reading a zero past the last row), for the VDPBF16PS kernel;
// roundJobsBF16 (or the row blocks, convRowTask) fills them.
func (b *Backend) layoutJobsBF16(p *bf16Panels) {
	K := p.dims.cols
	t := &b.convT
	total := 0
	for i := range b.convJobs {
		j := &b.convJobs[i]
		j.nx = min(len(j.x), t.span(j))
		total += j.nx + 2*p.kp - K
	}
	if cap(b.convXB) < total {
		b.convXB = make([]uint16, total)
	}
	buf := b.convXB[:total]
	off := 0
	for i := range b.convJobs {
		j := &b.convJobs[i]
		n := j.nx + 2*p.kp - K
		xb := buf[off : off+n : off+n]
		off += n
		clear(xb[j.nx:])
		j.xb = xb
	}
}

// roundJobsBF16 rounds every job's inputs into its region (layoutJobsBF16),
// split over the pool by blocks of 4096 values of each job.
func (b *Backend) roundJobsBF16() {
	rt := &b.roundT
	rt.jobs, rt.l = b.convJobs, active
	n := 0
	for i := range b.convJobs {
		n += (b.convJobs[i].nx + roundBlock - 1) / roundBlock
	}
	if b.pool != nil && n > 1 {
		b.pool.Run(rt, n, 1)
	} else {
		rt.RunRange(0, n)
	}
	rt.jobs = nil
}

// roundBlock is the values of one unit of the bf16 rounding task.
const roundBlock = 4096

// roundTask rounds the jobs' inputs to bf16 (roundJobsBF16): units of
// roundBlock values, job after job.
type roundTask struct {
	jobs []convJob
	l    Level
}

// RunRange implements Task over units [lo, hi).
func (t *roundTask) RunRange(lo, hi int) {
	u := 0
	for i := range t.jobs {
		j := &t.jobs[i]
		nu := (j.nx + roundBlock - 1) / roundBlock
		for v := max(lo-u, 0); v < min(hi-u, nu); v++ {
			a, e := v*roundBlock, min((v+1)*roundBlock, j.nx)
			toBF16(t.l, j.xb[a:e], j.x[a:e])
		}
		u += nu
		if u >= hi {
			return
		}
	}
}

// convSmallRow is a row of a small job, set aside for packing: its input
// (K values from x) and its output (out values from y).
type convSmallRow struct{ y, x []float32 }

// addConvJob appends a job: for the AVX2 row list as it is; for a grouped
// kernel, a small job's rows are set aside (runConvJobs packs them) and a
// larger one gets a pad of its leftover rows from b.convPad.
func (b *Backend) addConvJob(y []float32, ldy int, x []float32, ldx, m, k int) {
	if b.rowListed() {
		b.convJobs = append(b.convJobs, convJob{y: y, x: x, ldy: ldy, ldx: ldx, m: m})
		return
	}
	g, _ := b.convGrouping()
	if g > 1 && m < 2*g {
		for i := 0; i < m; i++ {
			b.convSmall = append(b.convSmall, convSmallRow{y: y[i*ldy:], x: x[i*ldx : i*ldx+k]})
		}
		return
	}
	n := 0
	if g > 1 {
		n = (g-1)*ldx + k
	}
	off := len(b.convPad)
	if cap(b.convPad) < off+n {
		// Grow; earlier jobs keep their (old) pads, still valid.
		np := make([]float32, off, 2*(off+n))
		copy(np, b.convPad)
		b.convPad = np
	}
	b.convPad = b.convPad[:off+n]
	pad := b.convPad[off : off+n : off+n]
	fillConvPadG(g, pad, x, ldx, m, k)
	b.convJobs = append(b.convJobs, convJob{y: y, x: x, pad: pad, ldy: ldy, ldx: ldx, m: m})
}
