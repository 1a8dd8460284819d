package simd

import "unsafe"

// convJob is one strided GEMM of a conv call: rows i < m of x (stride ldx)
// into y (stride ldy), with its own pad for the rows left over.
type convJob struct {
	y, x, pad []float32
	ldy, ldx  int
	m         int
}

// convTask runs a conv call's jobs over output panels [lo, hi) of w.
//
// At the AVX2 level the rows of every job are listed by pointer (yp, xp;
// padded to a multiple of 6 with the last row again) and go through the
// row-list kernel 6 at a time, whatever job they belong to, so small jobs
// (a dilated conv's phases, a batch's segments) waste no kernel rows.
type convTask struct {
	l    Level
	w    *F32Matrix
	jobs []convJob
	bias []float32 // nil, or added to every job row's outputs

	yp, xp         []uintptr // AVX2: each listed row's output and input
	rowJob, rowIdx []int32   // AVX2: each listed row's job and row in it
	tile           [6 * PanelRows]float32
	tp             [6]uintptr // rows of tile
}

// RunRange implements Task over panels [lo, hi): a chunk of panels at a
// time through every job, so a dilated conv's phases (or a batch's
// segments) share each weight panel while it is in cache.
func (t *convTask) RunRange(lo, hi int) {
	if t.l == AVX2 && haveAsm {
		t.runRows(lo, hi)
		return
	}
	chunk := max(1, convChunkBytes/(64*t.w.cols))
	for pc := lo; pc < hi; pc += chunk {
		pe := min(pc+chunk, hi)
		for i := range t.jobs {
			j := &t.jobs[i]
			convGemmPanels(t.l, j.y, j.ldy, j.x, j.ldx, j.m, t.w, pc, pe, j.pad)
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
// that every row the kernel will touch lies inside its job's slices.
func (t *convTask) listRows() {
	k, n := t.w.cols, t.w.rows
	t.yp, t.xp, t.rowJob, t.rowIdx = t.yp[:0], t.xp[:0], t.rowJob[:0], t.rowIdx[:0]
	for ji := range t.jobs {
		j := &t.jobs[ji]
		if j.m < 1 || len(j.x) < (j.m-1)*j.ldx+k || len(j.y) < (j.m-1)*j.ldy+n {
			panic("omni: BUG: conv job rows outside its slices")
		}
		for i := 0; i < j.m; i++ {
			t.yp = append(t.yp, uintptr(unsafe.Pointer(&j.y[i*j.ldy])))
			t.xp = append(t.xp, uintptr(unsafe.Pointer(&j.x[i*j.ldx])))
			t.rowJob = append(t.rowJob, int32(ji))
			t.rowIdx = append(t.rowIdx, int32(i))
		}
	}
	for last := len(t.yp) - 1; len(t.yp)%6 != 0; {
		t.yp, t.xp = append(t.yp, t.yp[last]), append(t.xp, t.xp[last])
		t.rowJob, t.rowIdx = append(t.rowJob, t.rowJob[last]), append(t.rowIdx, t.rowIdx[last])
	}
	for r := range t.tp {
		t.tp[r] = uintptr(unsafe.Pointer(&t.tile[r*PanelRows]))
	}
}

// runRows is RunRange at the AVX2 level: the listed rows, 6 at a time,
// against panel chunks of [lo, hi). A padding row repeats the last row, so
// it writes the same values to the same place in the same call. The last,
// partial panel (rows not a multiple of 16) goes through the tile; only the
// thread given that panel touches it.
func (t *convTask) runRows(lo, hi int) {
	w := t.w
	k := w.cols
	pb := PanelRows * k
	full := w.rows / PanelRows
	chunk := max(1, convChunkBytes/(4*pb))
	for pc := lo; pc < hi; pc += chunk {
		n := min(chunk, hi-pc)
		nf := max(0, min(n, full-pc))
		for g0 := 0; g0 < len(t.yp); g0 += 6 {
			if nf > 0 {
				gemmF32x6RowsAVX2(&t.yp[g0], &t.xp[g0], unsafe.Pointer(&w.data[pc*pb]), k, nf, 4*pc*PanelRows)
			}
			for p := pc + nf; p < pc+n; p++ {
				gemmF32x6RowsAVX2(&t.tp[0], &t.xp[g0], unsafe.Pointer(&w.data[p*pb]), k, 1, 0)
				nr := w.rows - p*PanelRows
				for r := 0; r < 6; r++ {
					j := &t.jobs[t.rowJob[g0+r]]
					i := int(t.rowIdx[g0+r])
					copy(j.y[i*j.ldy+p*PanelRows:][:nr], t.tile[r*PanelRows:][:nr])
				}
			}
		}
		t.addBias(pc, pc+n)
	}
}

// runConvJobs runs b.convJobs against w on the pool, split by panels, and
// adds bias (nil: none) to their outputs.
func (b *Backend) runConvJobs(w *F32Matrix, bias []float32) {
	t := &b.convT
	t.l, t.w, t.jobs, t.bias = active, w, b.convJobs, bias
	if t.l == AVX2 && haveAsm {
		t.listRows()
	}
	if b.pool != nil && w.panels > 1 {
		chunk := max(1, min(convChunkBytes/(64*w.cols), w.panels/b.pool.Threads()))
		b.pool.Run(t, w.panels, chunk)
	} else {
		t.RunRange(0, w.panels)
	}
	t.w, t.jobs, t.bias = nil, nil, nil
}

// addConvJob appends a job; below the AVX2 level's row list, with a pad
// taken from b.convPad.
func (b *Backend) addConvJob(y []float32, ldy int, x []float32, ldx, m, k int) {
	if active == AVX2 && haveAsm {
		b.convJobs = append(b.convJobs, convJob{y: y, x: x, ldy: ldy, ldx: ldx, m: m})
		return
	}
	n := convPadLen(active, ldx, k)
	off := len(b.convPad)
	if cap(b.convPad) < off+n {
		// Grow; earlier jobs keep their (old) pads, still valid.
		np := make([]float32, off, 2*(off+n))
		copy(np, b.convPad)
		b.convPad = np
	}
	b.convPad = b.convPad[:off+n]
	pad := b.convPad[off : off+n : off+n]
	fillConvPad(active, pad, x, ldx, m, k)
	b.convJobs = append(b.convJobs, convJob{y: y, x: x, pad: pad, ldy: ldy, ldx: ldx, m: m})
}
