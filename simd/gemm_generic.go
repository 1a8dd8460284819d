package simd

import "math"

// gemmQ8Generic is the reference kernel: input rows [0, g) of a group (qx
// from the group's first row, ldx bytes per group of 4 inputs; sc from the
// group's xs, ldsc entries per block), np panels from wd, 16 outputs per
// panel per row into y (row stride ldy). It performs exactly the float32
// operations of the assembly kernels, in the same order.
func gemmQ8Generic(y []float32, ldy int, qx []int8, ldx int, sc []uint32, ldsc int, g int, wd []byte, nb, block, np int) {
	bb := q8BlockBytes(block)
	kg := block / 4
	for p := 0; p < np; p++ {
		pd := wd[p*nb*bb:]
		for j := 0; j < g; j++ {
			var acc [PanelRows]float32
			for b := 0; b < nb; b++ {
				rec := pd[b*bb:][:bb]
				var isum [PanelRows]int32
				xb := qx[b*kg*ldx+4*j:]
				for t := 0; t < kg; t++ {
					xv := xb[t*ldx:][:4]
					x0, x1, x2, x3 := int32(xv[0]), int32(xv[1]), int32(xv[2]), int32(xv[3])
					wv := rec[t*64:][:64]
					for r := 0; r < PanelRows; r++ {
						u := wv[4*r:][:4]
						isum[r] += (int32(u[0])-128)*x0 + (int32(u[1])-128)*x1 +
							(int32(u[2])-128)*x2 + (int32(u[3])-128)*x3
					}
				}
				xs := math.Float32frombits(sc[b*ldsc+j])
				for r := 0; r < PanelRows; r++ {
					t := float32(float32(isum[r]) * xs)
					t = float32(t * bf16At(rec[PanelRows*block+2*r:]))
					acc[r] = float32(acc[r] + t)
				}
			}
			copy(y[j*ldy+p*PanelRows:][:PanelRows], acc[:])
		}
	}
}
