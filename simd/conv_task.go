package simd

// convJob is one strided GEMM of a conv call: rows i < m of x (stride ldx)
// into y (stride ldy), with its own pad for the rows left over.
type convJob struct {
	y, x, pad []float32
	ldy, ldx  int
	m         int
}

// convTask runs a conv call's jobs over output panels [lo, hi) of w.
type convTask struct {
	l    Level
	w    *F32Matrix
	jobs []convJob
}

// RunRange implements Task over panels [lo, hi): a chunk of panels at a
// time through every job, so a dilated conv's phases (or a batch's
// segments) share each weight panel while it is in cache.
func (t *convTask) RunRange(lo, hi int) {
	chunk := max(1, convChunkBytes/(64*t.w.cols))
	for pc := lo; pc < hi; pc += chunk {
		pe := min(pc+chunk, hi)
		for i := range t.jobs {
			j := &t.jobs[i]
			convGemmPanels(t.l, j.y, j.ldy, j.x, j.ldx, j.m, t.w, pc, pe, j.pad)
		}
	}
}

// runConvJobs runs b.convJobs against w on the pool, split by panels.
func (b *Backend) runConvJobs(w *F32Matrix) {
	t := &b.convT
	t.l, t.w, t.jobs = active, w, b.convJobs
	if b.pool != nil && w.panels > 1 {
		chunk := max(1, min(convChunkBytes/(64*w.cols), w.panels/b.pool.Threads()))
		b.pool.Run(t, w.panels, chunk)
	} else {
		t.RunRange(0, w.panels)
	}
	t.w, t.jobs = nil, nil
}

// addConvJob appends a job whose pad is taken from b.convPad.
func (b *Backend) addConvJob(y []float32, ldy int, x []float32, ldx, m, k int) {
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
