package simd

// The int8 convolutions: weights as a Q8Matrix of the same W' the fp32
// path packs (conv: out × kernel·in, taps outer; transposed: kernel·out ×
// in), activations quantized per row and block of ConvBlock inputs. As
// in is a multiple of the block, an im2col row's blocks are whole blocks of
// the input rows it reads: each input row is quantized once, and the
// im2col Q8Input is assembled from it by copying (its layout is grouped by
// 4 inputs, [k/4][row][4], so a tap's rows are one contiguous run of
// bytes). One GemmQ8 then covers every segment and phase, so the weights
// stream once per call.

// q8Scratch returns a second activation buffer (the conv's quantized input
// rows), kept apart from b.inputs: one per width, grown to the most rows
// asked, so convs of different widths in turn allocate nothing once warm.
func (b *Backend) q8Scratch(cols, m int) *Q8Input {
	for i, q := range b.convQ8In {
		if q.Cols() == cols {
			if q.MaxM() < m {
				q = NewQ8Input(max(m, 2*q.MaxM()), cols, ConvBlock)
				b.convQ8In[i] = q
			}
			return q
		}
	}
	q := NewQ8Input(max(m, 64), cols, ConvBlock)
	b.convQ8In = append(b.convQ8In, q)
	return q
}

// convQ8 is Conv's product on int8 weights (no bias).
func (b *Backend) convQ8(y, x []float32, m, batch int, c *convWeights) {
	in, out, k, d := c.in, c.out, c.kernel, c.dilation
	seg := ((k-1)*d + m) * in
	M := batch * m
	if k == 1 {
		q := b.q8Input(in, M, ConvBlock)
		q.Quantize(x, M)
		b.gemmQ8(y, q, c.q8)
		return
	}
	K := k * in
	ic := b.q8Input(K, M, ConvBlock)
	ic.m = M
	phases := min(d, m)
	// Dilation d: phase r's outputs t = r + d·u read rows r + d·(u+j); the
	// phase's rows g_r[u] = x[r + d·u] make it a dilation-1 conv.
	var gbuf []float32
	if d > 1 {
		n := (m/phases + k) * in
		if cap(b.convX) < n {
			b.convX = make([]float32, n)
		}
		gbuf = b.convX[:n]
	}
	off := 0
	for s := 0; s < batch; s++ {
		xs := x[s*seg : (s+1)*seg]
		for r := 0; r < phases; r++ {
			mr := (m - r + d - 1) / d
			rows := mr + k - 1
			src := xs
			if d > 1 {
				src = gbuf[:rows*in]
				for u := 0; u < rows; u++ {
					copy(src[u*in:(u+1)*in], xs[(r+d*u)*in:])
				}
			}
			base := b.q8Scratch(in, rows)
			base.Quantize(src, rows)
			im2colQ8(ic, off, base, mr, k)
			off += mr
		}
	}
	// The GEMM into the rows' order (segment, phase, u), then placed.
	if cap(b.convTmp) < M*out {
		b.convTmp = make([]float32, M*out)
	}
	tmp := b.convTmp[:M*out]
	if d == 1 {
		tmp = y
	}
	b.gemmQ8(tmp, ic, c.q8)
	if d == 1 {
		return
	}
	off = 0
	for s := 0; s < batch; s++ {
		ys := y[s*m*out : (s+1)*m*out]
		for r := 0; r < phases; r++ {
			for t := r; t < m; t += d {
				copy(ys[t*out:(t+1)*out], tmp[off*out:(off+1)*out])
				off++
			}
		}
	}
}

// im2colQ8 writes rows [off, off+mr) of the im2col input ic (k taps of
// base's width) from base's rows: ic row off+u, tap j = base row u+j.
func im2colQ8(ic *Q8Input, off int, base *Q8Input, mr, k int) {
	M, mB := ic.m, base.m
	g4 := base.cols / 4 // groups of 4 inputs per tap
	for j := 0; j < k; j++ {
		for c := 0; c < g4; c++ {
			dst := ic.qx[(j*g4+c)*4*M+4*off:][:4*mr]
			copy(dst, base.qx[c*4*mB+4*j:][:4*mr])
		}
		for bl := 0; bl < base.nb; bl++ {
			jb := j*base.nb + bl
			copy(ic.sc[jb*2*M+off:][:mr], base.sc[bl*2*mB+j:][:mr])
			copy(ic.sc[jb*2*M+M+off:][:mr], base.sc[bl*2*mB+mB+j:][:mr])
		}
	}
}

// gemmConvTQ8 is ConvTranspose's GEMM on int8 weights: tmp[t][j·out+o] for
// m input rows.
func (b *Backend) gemmConvTQ8(tmp, x []float32, m int, c *convWeights) {
	q := b.q8Input(c.in, m, ConvBlock)
	q.Quantize(x, m)
	b.gemmQ8(tmp, q, c.q8)
}
