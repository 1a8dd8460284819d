package simd

import "math"

// This file adapts the Backend's ops to simd's kernels: it is the only place
// the Backend names a kernel, so a kernel's signature change touches one file.

// f32Weights is an fp32 matrix W (rows×cols, row-major).
type f32Weights struct {
	rows, cols int
	w          []float32
}

// newF32Weights copies W.
func newF32Weights(w []float32, rows, cols int) *f32Weights {
	return &f32Weights{rows: rows, cols: cols, w: append([]float32(nil), w...)}
}

// gemmF32 computes y[m×rows] = x[m×cols]·Wᵀ.
func (b *Backend) gemmF32(y, x []float32, m int, w *f32Weights) {
	for i := 0; i < m; i++ {
		xi := x[i*w.cols : (i+1)*w.cols]
		yi := y[i*w.rows : (i+1)*w.rows]
		for r := range yi {
			yi[r] = Dot(xi, w.w[r*w.cols:(r+1)*w.cols])
		}
	}
}

// gemmQ8 computes y[m×rows] = x·Wᵀ for quantized x.
func (b *Backend) gemmQ8(y []float32, x *Q8Input, w *Q8Matrix) {
	GemmQ8(y, x, w)
}

// workers is the Backend's thread pool.
type workers struct{}

func newWorkers(threads int) *workers { return &workers{} }
func (w *workers) close()             {}

// rmsNorm writes out[r] = x[r] / sqrt(mean(x[r]²) + eps) · w for m rows.
func rmsNorm(out, x []float32, m int, w []float32, eps float32) {
	n := len(w)
	for r := 0; r < m; r++ {
		xr, or := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
		var ss float64
		for _, v := range xr {
			ss += float64(v) * float64(v)
		}
		inv := float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
		for i, v := range xr {
			or[i] = v * inv * w[i]
		}
	}
}

// ropeTable holds cos and sin of pos·θ^(-2i/d) for i < d/2.
type ropeTable struct {
	half     int
	cos, sin []float32
}

// newRopeTable builds the rotate-half tables.
func newRopeTable(headDim, maxPos int, theta float32) *ropeTable {
	h := headDim / 2
	t := &ropeTable{half: h, cos: make([]float32, maxPos*h), sin: make([]float32, maxPos*h)}
	for p := 0; p < maxPos; p++ {
		for i := 0; i < h; i++ {
			inv := math.Pow(float64(theta), -float64(2*i)/float64(headDim))
			a := float64(p) * inv
			t.cos[p*h+i] = float32(math.Cos(a))
			t.sin[p*h+i] = float32(math.Sin(a))
		}
	}
	return t
}

// apply rotates nHeads heads of x (each 2·half values) to position pos:
// x1' = x1·cos − x2·sin, x2' = x2·cos + x1·sin.
func (t *ropeTable) apply(x []float32, nHeads, pos int) {
	h := t.half
	c, s := t.cos[pos*h:(pos+1)*h], t.sin[pos*h:(pos+1)*h]
	for k := 0; k < nHeads; k++ {
		v := x[k*2*h : (k+1)*2*h]
		for i := 0; i < h; i++ {
			x1, x2 := v[i], v[i+h]
			v[i] = x1*c[i] - x2*s[i]
			v[i+h] = x2*c[i] + x1*s[i]
		}
	}
}

// siluMul writes out[i] = silu(gate[i])·up[i].
func siluMul(out, gate, up []float32) {
	for i, g := range gate {
		out[i] = float32(float64(g)/(1+math.Exp(-float64(g)))) * up[i]
	}
}

// attend computes one row's attention: for each q head h (GQA group
// h/(nHeads/nKV)), softmax over positions 0..nPos-1 of scale·q·k, times v.
// k and v are [pos][nKV][headDim]; scores needs nPos values.
func attend(out, q, k, v []float32, nPos, nHeads, nKV, headDim int, scale float32, scores []float32) {
	group := nHeads / nKV
	stride := nKV * headDim
	for h := 0; h < nHeads; h++ {
		kh := h / group
		qh := q[h*headDim : (h+1)*headDim]
		mx := float32(math.Inf(-1))
		for p := 0; p < nPos; p++ {
			s := Dot(qh, k[p*stride+kh*headDim:p*stride+(kh+1)*headDim]) * scale
			scores[p] = s
			mx = max(mx, s)
		}
		var sum float32
		for p := 0; p < nPos; p++ {
			e := float32(math.Exp(float64(scores[p] - mx)))
			scores[p] = e
			sum += e
		}
		oh := out[h*headDim : (h+1)*headDim]
		clear(oh)
		inv := 1 / sum
		for p := 0; p < nPos; p++ {
			Axpy(scores[p]*inv, v[p*stride+kh*headDim:p*stride+(kh+1)*headDim], oh)
		}
	}
}
