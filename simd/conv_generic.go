package simd

// convGemmGeneric is the reference conv GEMM: output panels [p0, p1) of w
// for rows i < m of x (stride ldx), each sum in input order with every
// product and sum rounded to float32.
func convGemmGeneric(y []float32, ldy int, x []float32, ldx, m int, w *F32Matrix, p0, p1 int) {
	k := w.cols
	pb := PanelRows * k
	for p := p0; p < p1; p++ {
		pd := w.data[p*pb : (p+1)*pb]
		nr := min(PanelRows, w.rows-p*PanelRows)
		for i := 0; i < m; i++ {
			xr := x[i*ldx : i*ldx+k]
			var acc [PanelRows]float32
			for kk, xv := range xr {
				wv := pd[kk*PanelRows:][:PanelRows]
				for r := range acc {
					acc[r] = float32(acc[r] + float32(xv*wv[r]))
				}
			}
			copy(y[i*ldy+p*PanelRows:][:nr], acc[:nr])
		}
	}
}
