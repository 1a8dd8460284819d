package simd

// gemmF32Generic is the reference fp32 kernel: g input rows of x (row
// stride cols) against np panels of wd, each sum in input order.
func gemmF32Generic(y []float32, ldy int, x []float32, cols, g int, wd []float32, np int) {
	pb := PanelRows * cols
	for p := 0; p < np; p++ {
		pd := wd[p*pb : (p+1)*pb]
		for j := 0; j < g; j++ {
			xr := x[j*cols : (j+1)*cols]
			var acc [PanelRows]float32
			for k, xv := range xr {
				wv := pd[k*PanelRows:][:PanelRows]
				for r := range acc {
					acc[r] = float32(acc[r] + float32(xv*wv[r]))
				}
			}
			copy(y[j*ldy+p*PanelRows:][:PanelRows], acc[:])
		}
	}
}
