package simd

// gemmQ4Task splits GemmQ4 over output panels.
type gemmQ4Task struct {
	y []float32
	x *Q8Input
	w *Q4Matrix
}

// RunRange implements Task over panels [lo, hi).
func (t *gemmQ4Task) RunRange(lo, hi int) {
	GemmQ4Rows(t.y, t.x, t.w, lo*PanelRows, min(hi*PanelRows, t.w.rows))
}

// GemmQ4 is GemmQ4 split over the pool's threads by output rows; the
// result is bit-identical to the single-threaded one. It allocates nothing.
func (p *Pool) GemmQ4(y []float32, x *Q8Input, w *Q4Matrix) {
	checkQ4(y, x, w, 0, w.rows)
	if p.threads == 1 || w.panels == 1 {
		GemmQ4(y, x, w)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &p.q4
	t.y, t.x, t.w = y, x, w
	p.runDynamic(t, w.panels, wholeQuads(max(1, min(poolChunkBytes/w.panelBytes, w.panels/p.threads))))
	t.y, t.x, t.w = nil, nil, nil
}
