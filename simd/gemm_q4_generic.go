package simd

import "math"

// gemmQ4Generic is the reference kernel: input rows [0, g) of a group (qx
// from the group's first row, ldx bytes per group of 4 inputs; sc from the
// group's xs, ldsc entries per block), np panels from wd, 16 outputs per
// panel per row into y (row stride ldy). tab[16:32] is the codebook. It
// performs exactly the float32 operations of the assembly kernels, in the
// same order (the integer block sums are exact in any order).
func gemmQ4Generic(y []float32, ldy int, qx []int8, ldx int, sc []uint32, ldsc int, g int, wd []byte, nb, np int, tab *[32]byte) {
	pb := nb * (q4Record + q4ScaleBytes)
	var lv [16]int32
	for c := range lv {
		lv[c] = int32(int8(tab[16+c]))
	}
	for p := 0; p < np; p++ {
		pd := wd[p*pb : (p+1)*pb]
		scales := pd[nb*q4Record:]
		for j := 0; j < g; j++ {
			var acc [PanelRows]float32
			for b := 0; b < nb; b++ {
				rec := pd[b*q4Record:][:q4Record]
				var isum [PanelRows]int32
				xb := qx[b*(Q4Block/4)*ldx+4*j:]
				for s := 0; s < 4; s++ {
					xl := xb[2*s*ldx:][:4]
					xh := xb[(2*s+1)*ldx:][:4]
					v := rec[s*64:][:64]
					for r := 0; r < PanelRows; r++ {
						u := v[4*r:][:4]
						for i := 0; i < 4; i++ {
							isum[r] += lv[u[i]&15]*int32(xl[i]) + lv[u[i]>>4]*int32(xh[i])
						}
					}
				}
				xs := math.Float32frombits(sc[b*ldsc+j])
				for r := 0; r < PanelRows; r++ {
					t := float32(float32(isum[r]) * xs)
					t = float32(t * bf16At(scales[b*q4ScaleBytes+2*r:]))
					acc[r] = float32(acc[r] + t)
				}
			}
			copy(y[j*ldy+p*PanelRows:][:PanelRows], acc[:])
		}
	}
}
