package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The references below are written from the PyTorch definitions (Conv1d,
// ConvTranspose1d, depthwise Conv1d, SnakeBeta, LayerNorm, GELU, sliding-
// window attention with rotate-half RoPE), in float64 on the PyTorch
// layouts, independently of the packed layouts the backend uses.

func randVec(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// refConv is Conv1d (w[o][i][j], dilation d, no padding) over a [C, T]
// signal given time-major: y[t][o] = b[o] + Σ_i Σ_j w[o][i][j]·x[t+j·d][i]
// for t < T − (k−1)·d. It also returns Σ |terms| per output for tolerances.
func refConv(x []float32, T, in, out, k, d int, w, bias []float32) (y, mag []float64) {
	n := T - (k-1)*d
	y, mag = make([]float64, n*out), make([]float64, n*out)
	for t := 0; t < n; t++ {
		for o := 0; o < out; o++ {
			var s, a float64
			if bias != nil {
				s, a = float64(bias[o]), math.Abs(float64(bias[o]))
			}
			for i := 0; i < in; i++ {
				for j := 0; j < k; j++ {
					p := float64(w[(o*in+i)*k+j]) * float64(x[(t+j*d)*in+i])
					s += p
					a += math.Abs(p)
				}
			}
			y[t*out+o], mag[t*out+o] = s, a
		}
	}
	return y, mag
}

// refConvT is ConvTranspose1d (w[i][o][j], stride s) over T input rows,
// full length (T−1)·s + k.
func refConvT(x []float32, T, in, out, k, s int, w, bias []float32) (y, mag []float64) {
	n := (T-1)*s + k
	y, mag = make([]float64, n*out), make([]float64, n*out)
	for t := 0; t < T; t++ {
		for i := 0; i < in; i++ {
			for o := 0; o < out; o++ {
				for j := 0; j < k; j++ {
					p := float64(x[t*in+i]) * float64(w[(i*out+o)*k+j])
					y[(t*s+j)*out+o] += p
					mag[(t*s+j)*out+o] += math.Abs(p)
				}
			}
		}
	}
	if bias != nil {
		for q := 0; q < n; q++ {
			for o := 0; o < out; o++ {
				y[q*out+o] += float64(bias[o])
				mag[q*out+o] += math.Abs(float64(bias[o]))
			}
		}
	}
	return y, mag
}

// checkClose compares got with want within (n+2)·2⁻²³·mag + tiny.
func checkClose(t *testing.T, what string, got []float32, want, mag []float64, n int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		tol := float64(n+2)*0x1p-23*mag[i] + 1e-30
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, want %v (|Δ| %.3g > %.3g)", what, i, got[i], want[i], d, tol)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values off", what, bad)
	}
}

func TestBackendConvAgainstTorchDefinition(t *testing.T) {
	cases := []struct{ out, in, k, d, m, batch int }{
		{1, 1, 1, 1, 1, 1},
		{3, 2, 3, 1, 5, 1},
		{16, 8, 7, 1, 9, 2},
		{17, 5, 7, 3, 13, 1},
		{33, 19, 7, 9, 11, 3},
		{40, 24, 3, 2, 1, 2},
		{1, 96, 7, 1, 37, 1},
		{1, 96, 7, 1, 150, 2}, // one output, rows split over threads with a tile each
		{96, 96, 1, 1, 23, 2},
		{112, 24, 7, 1, 17, 2}, // 7 panels: 4, a pair, 1
		{20, 128, 7, 1, 29, 1}, // K = 896: the AVX2 level splits K
		{24, 300, 7, 1, 17, 2}, // K = 2100, a partial panel
		{16, 310, 7, 3, 13, 1}, // K = 2170, dilated
		{64, 24, 7, 3, 30, 2},  // dilated, 4 panels (taps read in place)
		{80, 310, 3, 2, 13, 1}, // dilated, K = 930 + 0: 4 panels and 1; blocks of whole taps
		{112, 350, 7, 2, 8, 1}, // dilated, K = 2450 in blocks of 3 taps; 4, a pair, 1
		// Few output panels and many rows: 2 threads split the rows
		// (convRowTask), with a bias, over batches, phases and K blocks.
		{32, 64, 3, 1, 100, 1},
		{64, 32, 1, 1, 97, 2},
		{128, 40, 2, 1, 61, 1},
		{16, 24, 7, 3, 70, 1},
		{32, 600, 2, 1, 50, 1}, // K = 1200
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			r := rand.New(rand.NewPCG(1, 2))
			for _, c := range cases {
				w := randVec(r, c.out*c.in*c.k, 0.3)
				var bias []float32
				if c.out%2 == 1 || c.m >= 48 {
					bias = randVec(r, c.out, 1)
				}
				h, err := b.NewConv(c.out, c.in, c.k, c.d, w, bias, "fp32")
				if err != nil {
					t.Fatal(err)
				}
				T := (c.k-1)*c.d + c.m
				x := randVec(r, c.batch*T*c.in, 1)
				y := make([]float32, c.batch*c.m*c.out)
				if err := b.Conv(y, x, c.m, c.batch, h); err != nil {
					t.Fatal(err)
				}
				for s := 0; s < c.batch; s++ {
					want, mag := refConv(x[s*T*c.in:(s+1)*T*c.in], T, c.in, c.out, c.k, c.d, w, bias)
					checkClose(t, "Conv", y[s*c.m*c.out:(s+1)*c.m*c.out], want, mag, c.in*c.k)
				}
			}
			b.Close()
		}
	})
}

// TestBackendAddTo: AddTo on one and two threads, short and long (split
// over the pool), equals a scalar loop's float32 sums bit for bit; unequal
// lengths are refused.
func TestBackendAddTo(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			r := rand.New(rand.NewPCG(7, 8))
			for _, n := range []int{1, 17, 1000, 100003} {
				dst, src := randVec(r, n, 3), randVec(r, n, 1)
				want := make([]float32, n)
				for i := range want {
					want[i] = dst[i] + src[i]
				}
				if err := b.AddTo(dst, src); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%d threads, n %d: dst[%d] = %v, want %v", threads, n, i, dst[i], want[i])
					}
				}
			}
			if err := b.AddTo(make([]float32, 3), make([]float32, 2)); err == nil {
				t.Error("AddTo of unequal lengths: no error")
			}
			b.Close()
		}
	})
}

// TestBackendLayerNormScaleThreadsAgree: LayerNorm and Scale over enough
// rows to split them over the pool give the bits of one thread, and
// LayerNorm matches its float64 definition.
func TestBackendLayerNormScaleThreadsAgree(t *testing.T) {
	b1, b2 := NewBackend(1), NewBackend(2)
	defer b1.Close()
	defer b2.Close()
	r := rand.New(rand.NewPCG(9, 10))
	m, n := 130, 512
	wv, bv, x := randVec(r, n, 1), randVec(r, n, 1), randVec(r, m*n, 3)
	var y [2][]float32
	var s [2][]float32
	for i, b := range []*Backend{b1, b2} {
		hw, _ := b.NewVector(wv)
		hb, _ := b.NewVector(bv)
		y[i], s[i] = make([]float32, m*n), make([]float32, m*n)
		if err := b.LayerNorm(y[i], x, m, hw, hb, 1e-5); err != nil {
			t.Fatal(err)
		}
		if err := b.Scale(s[i], x, m, hw); err != nil {
			t.Fatal(err)
		}
	}
	for i := range y[0] {
		if math.Float32bits(y[0][i]) != math.Float32bits(y[1][i]) || math.Float32bits(s[0][i]) != math.Float32bits(s[1][i]) {
			t.Fatalf("[%d]: LayerNorm %v / %v, Scale %v / %v on 1 / 2 threads", i, y[0][i], y[1][i], s[0][i], s[1][i])
		}
		if want := x[i] * wv[i%n]; s[1][i] != want {
			t.Fatalf("Scale[%d] = %v, want %v", i, s[1][i], want)
		}
	}
	for row := 0; row < m; row++ {
		var mean, v float64
		for i := 0; i < n; i++ {
			mean += float64(x[row*n+i])
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			d := float64(x[row*n+i]) - mean
			v += d * d
		}
		rstd := 1 / math.Sqrt(v/float64(n)+1e-5)
		for i := 0; i < n; i++ {
			want := (float64(x[row*n+i])-mean)*rstd*float64(wv[i]) + float64(bv[i])
			if d := math.Abs(float64(y[1][row*n+i]) - want); d > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("LayerNorm[%d][%d] = %v, want %v", row, i, y[1][row*n+i], want)
			}
		}
	}
}

// TestBackendConvThreadsAgree: a conv with few output panels and many rows,
// whose rows 2 threads split between them (convRowTask), gives the bits of
// one thread, in fp32 and bf16, with a bias, over batches, dilation phases
// and K blocks.
func TestBackendConvThreadsAgree(t *testing.T) {
	cases := []struct{ out, in, k, d, m, batch int }{
		{32, 64, 3, 1, 100, 1}, {64, 32, 1, 1, 97, 2}, {128, 40, 2, 1, 61, 1}, {16, 24, 7, 3, 70, 1}, {32, 600, 2, 1, 50, 1},
	}
	eachLevel(t, func(t *testing.T) {
		b1, b2 := NewBackend(1), NewBackend(2)
		defer b1.Close()
		defer b2.Close()
		r := rand.New(rand.NewPCG(5, 6))
		for _, prec := range []string{"fp32", "bf16"} {
			for _, c := range cases {
				w, bias := randVec(r, c.out*c.in*c.k, 0.3), randVec(r, c.out, 1)
				h1, err := b1.NewConv(c.out, c.in, c.k, c.d, w, bias, prec)
				if err != nil {
					t.Fatal(err)
				}
				h2, err := b2.NewConv(c.out, c.in, c.k, c.d, w, bias, prec)
				if err != nil {
					t.Fatal(err)
				}
				x := randVec(r, c.batch*((c.k-1)*c.d+c.m)*c.in, 1)
				y1, y2 := make([]float32, c.batch*c.m*c.out), make([]float32, c.batch*c.m*c.out)
				if err := b1.Conv(y1, x, c.m, c.batch, h1); err != nil {
					t.Fatal(err)
				}
				if err := b2.Conv(y2, x, c.m, c.batch, h2); err != nil {
					t.Fatal(err)
				}
				for i := range y1 {
					if math.Float32bits(y1[i]) != math.Float32bits(y2[i]) {
						t.Fatalf("%s %+v: y[%d] = %v on 2 threads, %v on 1", prec, c, i, y2[i], y1[i])
					}
				}
			}
		}
	})
}

// TestBackendConvStreamsExactly: a stream pushed in pieces (each call's
// history taken from the rows before) gives the bits of one call.
func TestBackendConvStreamsExactly(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		b := NewBackend(2)
		defer b.Close()
		r := rand.New(rand.NewPCG(3, 4))
		for _, d := range []int{1, 3, 9, 0} {
			out, in, k, m := 37, 29, 7, 41
			switch d {
			case 1:
				in = 130 // K = 910
			case 0:
				d, in = 1, 310 // K = 2170
			}
			h, err := b.NewConv(out, in, k, d, randVec(r, out*in*k, 0.2), randVec(r, out, 1), "fp32")
			if err != nil {
				t.Fatal(err)
			}
			hist := (k - 1) * d
			x := randVec(r, (hist+m)*in, 1)
			whole := make([]float32, m*out)
			if err := b.Conv(whole, x, m, 1, h); err != nil {
				t.Fatal(err)
			}
			for trial := 0; trial < 5; trial++ {
				for t0 := 0; t0 < m; {
					n := 1 + r.IntN(m-t0)
					y := make([]float32, n*out)
					if err := b.Conv(y, x[t0*in:(t0+hist+n)*in], n, 1, h); err != nil {
						t.Fatal(err)
					}
					for i, v := range y {
						if math.Float32bits(v) != math.Float32bits(whole[t0*out+i]) {
							t.Fatalf("dilation %d rows %d..%d: y[%d] = %v, one call %v", d, t0, t0+n, i, v, whole[t0*out+i])
						}
					}
					t0 += n
				}
			}
		}
	})
}

func TestBackendConvTransposeAgainstTorchDefinition(t *testing.T) {
	cases := []struct{ in, out, k, s, m, batch int }{
		{1, 1, 1, 1, 1, 1},
		{5, 3, 4, 2, 6, 1},
		{24, 17, 16, 8, 4, 2},
		{19, 16, 10, 5, 3, 1},
		{32, 40, 8, 4, 7, 3},
		{13, 9, 6, 3, 20, 1},
		{8, 5, 5, 2, 9, 2},     // kernel not a multiple of the stride
		{24, 48, 6, 3, 150, 2}, // enough rows for the overlap-add's split over the pool
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			r := rand.New(rand.NewPCG(5, 6))
			for _, c := range cases {
				w := randVec(r, c.in*c.out*c.k, 0.3)
				var bias []float32
				if c.k%2 == 0 {
					bias = randVec(r, c.out, 1)
				}
				h, err := b.NewConvTranspose(c.in, c.out, c.k, c.s, w, bias, "fp32")
				if err != nil {
					t.Fatal(err)
				}
				x := randVec(r, c.batch*c.m*c.in, 1)
				tail := (c.k - c.s) * c.out
				carry := make([]float32, c.batch*tail)
				// Push the rows in two calls; the output is the full
				// transposed conv's first rows, then the carry its rest.
				m1 := c.m / 2
				var y []float32
				got := make([][]float32, c.batch)
				for _, part := range [][2]int{{0, m1}, {m1, c.m}} {
					n := part[1] - part[0]
					if n == 0 {
						continue
					}
					xs := make([]float32, 0, c.batch*n*c.in)
					for s := 0; s < c.batch; s++ {
						xs = append(xs, x[(s*c.m+part[0])*c.in:(s*c.m+part[1])*c.in]...)
					}
					y = make([]float32, c.batch*n*c.s*c.out)
					if err := b.ConvTranspose(y, xs, n, c.batch, h, carry); err != nil {
						t.Fatal(err)
					}
					for s := 0; s < c.batch; s++ {
						got[s] = append(got[s], y[s*n*c.s*c.out:(s+1)*n*c.s*c.out]...)
					}
				}
				for s := 0; s < c.batch; s++ {
					want, mag := refConvT(x[s*c.m*c.in:(s+1)*c.m*c.in], c.m, c.in, c.out, c.k, c.s, w, bias)
					full := append(got[s], carry[s*tail:(s+1)*tail]...)
					if bias != nil { // the carry holds sums without the bias
						for q := c.m * c.s; q < len(full)/c.out; q++ {
							for o := 0; o < c.out; o++ {
								full[q*c.out+o] += bias[o]
							}
						}
					}
					checkClose(t, "ConvTranspose", full, want, mag, c.in*2+2)
				}
			}
			b.Close()
		}
	})
}

func TestBackendConvTransposeStreamsExactly(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		b := NewBackend(2)
		defer b.Close()
		r := rand.New(rand.NewPCG(7, 8))
		in, out, k, s, m := 40, 24, 10, 5, 23
		h, err := b.NewConvTranspose(in, out, k, s, randVec(r, in*out*k, 0.2), randVec(r, out, 1), "fp32")
		if err != nil {
			t.Fatal(err)
		}
		x := randVec(r, m*in, 1)
		whole := make([]float32, m*s*out)
		wc := make([]float32, (k-s)*out)
		if err := b.ConvTranspose(whole, x, m, 1, h, wc); err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 5; trial++ {
			carry := make([]float32, (k-s)*out)
			for t0 := 0; t0 < m; {
				n := 1 + r.IntN(m-t0)
				y := make([]float32, n*s*out)
				if err := b.ConvTranspose(y, x[t0*in:(t0+n)*in], n, 1, h, carry); err != nil {
					t.Fatal(err)
				}
				for i, v := range y {
					if math.Float32bits(v) != math.Float32bits(whole[t0*s*out+i]) {
						t.Fatalf("rows %d..%d: y[%d] = %v, one call %v", t0, t0+n, i, v, whole[t0*s*out+i])
					}
				}
				t0 += n
			}
			for i := range carry {
				if math.Float32bits(carry[i]) != math.Float32bits(wc[i]) {
					t.Fatalf("carry[%d] = %v, one call %v", i, carry[i], wc[i])
				}
			}
		}
	})
}

func TestBackendDepthwiseAgainstTorchDefinition(t *testing.T) {
	b := NewBackend(1)
	r := rand.New(rand.NewPCG(9, 10))
	ch, k, m, batch := 11, 7, 9, 2
	w, bias := randVec(r, ch*k, 0.5), randVec(r, ch, 1)
	h, err := b.NewDepthwise(ch, k, w, bias)
	if err != nil {
		t.Fatal(err)
	}
	T := k - 1 + m
	x := randVec(r, batch*T*ch, 1)
	y := make([]float32, batch*m*ch)
	if err := b.Depthwise(y, x, m, batch, h); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < batch; s++ {
		for tt := 0; tt < m; tt++ {
			for c := 0; c < ch; c++ {
				want, mag := float64(bias[c]), math.Abs(float64(bias[c]))
				for j := 0; j < k; j++ {
					p := float64(w[c*k+j]) * float64(x[(s*T+tt+j)*ch+c])
					want += p
					mag += math.Abs(p)
				}
				got := y[(s*m+tt)*ch+c]
				if d := math.Abs(float64(got) - want); d > float64(k+2)*0x1p-23*mag {
					t.Errorf("Depthwise[%d][%d][%d] = %v, want %v", s, tt, c, got, want)
				}
			}
		}
	}
}

func TestBackendSnakeGELULayerNormScale(t *testing.T) {
	b := NewBackend(1)
	r := rand.New(rand.NewPCG(11, 12))
	ch, m := 13, 5
	alpha, beta := randVec(r, ch, 0.5), randVec(r, ch, 0.5)
	h, err := b.NewSnake(ch, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	x := randVec(r, m*ch, 3)
	y := make([]float32, m*ch)
	if err := b.Snake(y, x, m, h); err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		c := i % ch
		a := math.Exp(float64(alpha[c]))
		s := math.Sin(float64(v) * a)
		want := float64(v) + s*s/(math.Exp(float64(beta[c]))+1e-9)
		if d := math.Abs(float64(y[i]) - want); d > 1e-5*(math.Abs(want)+1) {
			t.Errorf("Snake[%d] = %v, want %v", i, y[i], want)
		}
	}
	// GELU: 0.5·x·(1 + erf(x/√2)); worked values from Python's math.erf (erfc
	// for −6): gelu(1) = 0.8413447460685429, gelu(−1) = −0.15865525393145707.
	gx := []float32{1, -1, 0, 3.5, -6, 0.25}
	gy := make([]float32, len(gx))
	if err := b.GELU(gy, gx); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.8413447460685429, -0.15865525393145707, 0, 3.4991857982233756, -5.919525870226207e-09, 0.14967658142073093} {
		if d := math.Abs(float64(gy[i]) - want); d > 3e-7*math.Abs(float64(gx[i])) {
			t.Errorf("GELU(%v) = %v, want %v", gx[i], gy[i], want)
		}
	}
	// LayerNorm against its definition.
	n := 17
	wv, bv := randVec(r, n, 1), randVec(r, n, 1)
	hw, _ := b.NewVector(wv)
	hb, _ := b.NewVector(bv)
	lx := randVec(r, 3*n, 2)
	for i := range lx[:n] {
		lx[i] += 100 // a large mean
	}
	ly := make([]float32, 3*n)
	if err := b.LayerNorm(ly, lx, 3, hw, hb, 1e-5); err != nil {
		t.Fatal(err)
	}
	for row := 0; row < 3; row++ {
		var mean, vr float64
		for _, v := range lx[row*n : (row+1)*n] {
			mean += float64(v) / float64(n)
		}
		for _, v := range lx[row*n : (row+1)*n] {
			vr += (float64(v) - mean) * (float64(v) - mean) / float64(n)
		}
		for i := 0; i < n; i++ {
			want := (float64(lx[row*n+i])-mean)/math.Sqrt(vr+1e-5)*float64(wv[i]) + float64(bv[i])
			if d := math.Abs(float64(ly[row*n+i]) - want); d > 1e-6*(math.Abs(want)+1) {
				t.Errorf("LayerNorm[%d][%d] = %v, want %v", row, i, ly[row*n+i], want)
			}
		}
	}
	sy := make([]float32, 3*n)
	if err := b.Scale(sy, lx, 3, hw); err != nil {
		t.Fatal(err)
	}
	for i, v := range lx {
		if sy[i] != v*wv[i%n] {
			t.Errorf("Scale[%d] = %v, want %v", i, sy[i], v*wv[i%n])
		}
	}
}

// refWindowAttention is sliding-window attention over a whole sequence in
// float64: q, k rotated (rotate-half) at their positions, each position
// attending to the last window positions up to itself.
func refWindowAttention(qkv []float32, T, heads, hd, window int, theta float64) []float64 {
	qw := heads * hd
	half := hd / 2
	rot := func(v []float64, p int) {
		for i := 0; i < half; i++ {
			a := float64(p) / math.Pow(theta, float64(2*i)/float64(hd))
			c, s := math.Cos(a), math.Sin(a)
			x1, x2 := v[i], v[i+half]
			v[i], v[i+half] = x1*c-x2*s, x2*c+x1*s
		}
	}
	q := make([]float64, T*qw)
	k := make([]float64, T*qw)
	for t := 0; t < T; t++ {
		for i := 0; i < qw; i++ {
			q[t*qw+i] = float64(qkv[t*3*qw+i])
			k[t*qw+i] = float64(qkv[t*3*qw+qw+i])
		}
		for h := 0; h < heads; h++ {
			rot(q[t*qw+h*hd:t*qw+(h+1)*hd], t)
			rot(k[t*qw+h*hd:t*qw+(h+1)*hd], t)
		}
	}
	out := make([]float64, T*qw)
	for t := 0; t < T; t++ {
		for h := 0; h < heads; h++ {
			lo := max(0, t-window+1)
			sc := make([]float64, t-lo+1)
			mx := math.Inf(-1)
			for p := lo; p <= t; p++ {
				var d float64
				for i := 0; i < hd; i++ {
					d += q[t*qw+h*hd+i] * k[p*qw+h*hd+i]
				}
				sc[p-lo] = d / math.Sqrt(float64(hd))
				mx = math.Max(mx, sc[p-lo])
			}
			var sum float64
			for i := range sc {
				sc[i] = math.Exp(sc[i] - mx)
				sum += sc[i]
			}
			for p := lo; p <= t; p++ {
				for i := 0; i < hd; i++ {
					out[t*qw+h*hd+i] += sc[p-lo] / sum * float64(qkv[p*3*qw+2*qw+h*hd+i])
				}
			}
		}
	}
	return out
}

func TestBackendWindowAttentionAgainstDefinition(t *testing.T) {
	// Head widths 8, 16 and 32 take each level's kernels (8 runs AVX-512's
	// generic fallback); a 2-thread backend splits the heads over its pool
	// (the window and the heads are big enough to cross winAttnSplit).
	eachLevel(t, func(t *testing.T) {
		for _, c := range []struct{ threads, heads, hd, window, T, chunk int }{
			{1, 3, 8, 5, 13, 3}, {1, 2, 16, 7, 20, 3}, {2, 4, 32, 150, 170, 40}, {2, 3, 16, 300, 40, 3},
		} {
			t.Run(fmt.Sprintf("threads%d_heads%d_hd%d_window%d_chunk%d", c.threads, c.heads, c.hd, c.window, c.chunk), func(t *testing.T) {
				testWindowAttention(t, c.threads, c.heads, c.hd, c.window, c.T, c.chunk)
			})
		}
	})
}

// testWindowAttention pushes two streams through one backend: stream 0 row
// by row, stream 1 chunk rows at a time every chunk calls, interleaved into
// shared calls.
func testWindowAttention(t *testing.T, threads, heads, hd, window, T, chunk int) {
	b := NewBackend(threads)
	defer b.Close()
	r := rand.New(rand.NewPCG(13, 14))
	layers := 2
	theta := float32(10000)
	s0, _ := b.NewWindowKV(layers, heads, hd, window)
	s1, _ := b.NewWindowKV(layers, heads, hd, window)
	qw := heads * hd
	x0, x1 := randVec(r, T*3*qw, 1), randVec(r, T*3*qw, 1)
	want0 := refWindowAttention(x0, T, heads, hd, window, float64(theta))
	want1 := refWindowAttention(x1, T, heads, hd, window, float64(theta))
	got0, got1 := make([]float32, T*qw), make([]float32, T*qw)
	p1 := 0
	for p0 := 0; p0 < T; p0++ {
		var qkv []float32
		var kv, pos []int32
		qkv = append(qkv, x0[p0*3*qw:(p0+1)*3*qw]...)
		kv, pos = append(kv, s0), append(pos, int32(p0))
		n1 := 0
		if p0%chunk == 0 {
			n1 = min(chunk, T-p1)
			qkv = append(qkv, x1[p1*3*qw:(p1+n1)*3*qw]...)
			for i := 0; i < n1; i++ {
				kv, pos = append(kv, s1), append(pos, int32(p1+i))
			}
		}
		for layer := 0; layer < layers; layer++ { // same data in both layers
			out := make([]float32, len(kv)*qw)
			if err := b.WindowAttention(out, qkv, len(kv), kv, pos, layer, heads, hd, theta); err != nil {
				t.Fatal(err)
			}
			copy(got0[p0*qw:], out[:qw])
			copy(got1[p1*qw:], out[qw:])
		}
		p1 += n1
	}
	for i := range got0 {
		if d := math.Abs(float64(got0[i]) - want0[i]); d > 2e-5 {
			t.Errorf("stream 0 out[%d] = %v, want %v", i, got0[i], want0[i])
		}
		if d := math.Abs(float64(got1[i]) - want1[i]); d > 2e-5 {
			t.Errorf("stream 1 out[%d] = %v, want %v", i, got1[i], want1[i])
		}
	}
	// Out of order is refused; a reset starts again at 0.
	out := make([]float32, qw)
	if err := b.WindowAttention(out, x0[:3*qw], 1, []int32{s0}, []int32{5}, 0, heads, hd, theta); err == nil {
		t.Error("WindowAttention at a skipped position: no error")
	}
	if err := b.ResetKV(s0); err != nil {
		t.Fatal(err)
	}
	if err := b.WindowAttention(out, x0[:3*qw], 1, []int32{s0}, []int32{0}, 0, heads, hd, theta); err != nil {
		t.Errorf("WindowAttention at 0 after a reset: %v", err)
	}
}

func TestBackendCodecOpsRefuseBadCalls(t *testing.T) {
	b := NewBackend(1)
	conv, _ := b.NewConv(4, 3, 3, 2, make([]float32, 36), nil, "fp32")
	convT, _ := b.NewConvTranspose(3, 4, 4, 2, make([]float32, 48), nil, "fp32")
	dw, _ := b.NewDepthwise(3, 2, make([]float32, 6), nil)
	sn, _ := b.NewSnake(3, make([]float32, 3), make([]float32, 3))
	vec, _ := b.NewVector(make([]float32, 3))
	win, _ := b.NewWindowKV(1, 1, 2, 4)
	nan := []float32{float32(math.NaN())}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"conv nan", func() error { _, err := b.NewConv(1, 1, 1, 1, nan, nil, "fp32"); return err }, "not finite"},
		{"conv size", func() error { _, err := b.NewConv(2, 1, 1, 1, nan, nil, "fp32"); return err }, "weights"},
		{"conv precision", func() error { _, err := b.NewConv(1, 1, 1, 1, []float32{1}, nil, "fp8"); return err }, "precision"},
		{"conv bias", func() error { _, err := b.NewConv(1, 1, 1, 1, []float32{1}, []float32{1, 2}, "fp32"); return err }, "bias"},
		{"convT kernel < stride", func() error { _, err := b.NewConvTranspose(1, 1, 1, 2, []float32{1}, nil, "fp32"); return err }, "stride"},
		{"snake len", func() error { _, err := b.NewSnake(2, []float32{1}, []float32{1, 2}); return err }, "snake"},
		{"window kv odd", func() error { _, err := b.NewWindowKV(1, 1, 3, 4); return err }, "window kv"},
		{"Conv x len", func() error { return b.Conv(make([]float32, 8), make([]float32, 17), 2, 1, conv) }, "len(x)"},
		{"Conv kind", func() error { return b.Conv(make([]float32, 8), make([]float32, 18), 2, 1, convT) }, "holds a transposed conv"},
		{"Conv handle", func() error { return b.Conv(nil, nil, 1, 1, 99) }, "does not exist"},
		{"Conv m", func() error { return b.Conv(nil, nil, 0, 1, conv) }, "rows"},
		{"ConvT carry", func() error { return b.ConvTranspose(make([]float32, 8), make([]float32, 3), 1, 1, convT, nil) }, "len(carry)"},
		{"Depthwise len", func() error { return b.Depthwise(make([]float32, 3), make([]float32, 3), 1, 1, dw) }, "len(x)"},
		{"Snake len", func() error { return b.Snake(make([]float32, 3), make([]float32, 4), 1, sn) }, "len(x)"},
		{"Snake kind", func() error { return b.Snake(make([]float32, 3), make([]float32, 3), 1, vec) }, "holds a vector"},
		{"Scale len", func() error { return b.Scale(make([]float32, 3), make([]float32, 2), 1, vec) }, "len(x)"},
		{"LayerNorm eps", func() error { return b.LayerNorm(make([]float32, 3), make([]float32, 3), 1, vec, vec, 0) }, "eps"},
		{"GELU len", func() error { return b.GELU(make([]float32, 2), make([]float32, 3)) }, "GELU"},
		{"ResetKV kind", func() error { return b.ResetKV(vec) }, "window kv"},
		{"WindowAttention heads", func() error {
			return b.WindowAttention(make([]float32, 4), make([]float32, 12), 1, []int32{win}, []int32{0}, 0, 2, 2, 1e4)
		}, "heads"},
		{"WindowAttention layer", func() error {
			return b.WindowAttention(make([]float32, 2), make([]float32, 6), 1, []int32{win}, []int32{0}, 1, 1, 2, 1e4)
		}, "layer"},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, h := range []int32{conv, convT, dw, sn, win} {
		if n, err := b.Bytes(h); err != nil || n <= 0 {
			t.Errorf("Bytes(%d) = %d, %v", h, n, err)
		}
		if err := b.Free(h); err != nil {
			t.Error(err)
		}
	}
}

// TestBackendSnakeThreadsAgree: Snake split over the pool gives the bits of
// SnakeBeta on the calling goroutine.
func TestBackendSnakeThreadsAgree(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		b := NewBackend(2)
		defer b.Close()
		r := rand.New(rand.NewPCG(41, 42))
		m, ch := 300, 96
		alpha, beta := randVec(r, ch, 0.5), randVec(r, ch, 0.5)
		h, err := b.NewSnake(ch, alpha, beta)
		if err != nil {
			t.Fatal(err)
		}
		x := randVec(r, m*ch, 3)
		got, want := make([]float32, m*ch), make([]float32, m*ch)
		if err := b.Snake(got, x, m, h); err != nil {
			t.Fatal(err)
		}
		o := b.objs[h].snake
		SnakeBeta(want, x, m, o.a, o.inv)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("Snake[%d] = %v on the pool, %v alone", i, got[i], want[i])
			}
		}
	})
}

// TestBackendCodecOpsAllocateNothing: after the first call of a shape,
// the codec ops allocate nothing.
func TestBackendCodecOpsAllocateNothing(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		b := NewBackend(2)
		defer b.Close()
		r := rand.New(rand.NewPCG(43, 44))
		in, out, k, d, m := 64, 48, 7, 3, 20
		var calls []func() error
		for _, prec := range []string{"fp32", "bf16", "int8"} {
			hc, err := b.NewConv(out, in, k, d, randVec(r, out*in*k, 0.1), nil, prec)
			if err != nil {
				t.Fatal(err)
			}
			ht, err := b.NewConvTranspose(in, out, 6, 3, randVec(r, out*in*6, 0.1), nil, prec)
			if err != nil {
				t.Fatal(err)
			}
			x := randVec(r, ((k-1)*d+m)*in, 1)
			y := make([]float32, m*out)
			yt := make([]float32, m*3*out)
			carry := make([]float32, 3*out)
			calls = append(calls,
				func() error { return b.Conv(y, x, m, 1, hc) },
				func() error { return b.ConvTranspose(yt, x[:m*in], m, 1, ht, carry) })
		}
		hs, _ := b.NewSnake(in, randVec(r, in, 0.3), randVec(r, in, 0.3))
		// A residual unit and a block's Snake and transposed conv in one
		// call each, in tiles of 12 rows (fused on the VDPBF16PS path,
		// declined elsewhere).
		b.SetTileRows(12)
		for _, prec := range []string{"fp32", "bf16"} {
			h1, err := b.NewConv(in, in, 7, 3, randVec(r, in*in*7, 0.1), randVec(r, in, 1), prec)
			if err != nil {
				t.Fatal(err)
			}
			h2, err := b.NewConv(in, in, 1, 1, randVec(r, in*in, 0.1), nil, prec)
			if err != nil {
				t.Fatal(err)
			}
			xu, hist := randVec(r, 2*100*in, 1), randVec(r, 2*18*in, 1)
			calls = append(calls, func() error { _, err := b.ResUnit(xu, hist, 100, 2, hs, h1, hs, h2); return err })
			ht, err := b.NewConvTranspose(in, 16, 6, 3, randVec(r, in*16*6, 0.1), randVec(r, 16, 1), prec)
			if err != nil {
				t.Fatal(err)
			}
			yt, ct := make([]float32, 2*100*3*16), make([]float32, 2*3*16)
			calls = append(calls, func() error { _, err := b.SnakeConvTranspose(yt, xu, 100, 2, hs, ht, ct); return err })
		}
		xs := randVec(r, 400*in, 1)
		xa := randVec(r, 400*in, 1e-3)
		calls = append(calls, func() error { return b.Snake(xs, xs, 400, hs) },
			func() error { return b.GELU(xs, xs) },
			func() error { return b.AddTo(xs, xa) })
		// The row split (few output panels, many rows) and a window attention.
		hr, err := b.NewConv(32, 64, 3, 1, randVec(r, 32*64*3, 0.1), randVec(r, 32, 1), "fp32")
		if err != nil {
			t.Fatal(err)
		}
		xr, yr := randVec(r, 302*64, 1), make([]float32, 300*32)
		hw, err := b.NewWindowKV(1, 4, 32, 250)
		if err != nil {
			t.Fatal(err)
		}
		qkv, att := randVec(r, 3*128, 1), make([]float32, 128)
		kvs, pos := []int32{hw}, []int32{0}
		calls = append(calls, func() error { return b.Conv(yr, xr, 300, 1, hr) },
			func() error {
				err := b.WindowAttention(att, qkv, 1, kvs, pos, 0, 4, 32, 10000)
				pos[0]++
				return err
			})
		for i, f := range calls {
			if err := f(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(5, func() { _ = f() }); n != 0 {
				t.Errorf("call %d allocates %v times per run", i, n)
			}
		}
	})
}

// TestBackendGELUThreadsAgree: GELU split over the pool is within geluErf's
// bound (3e-7·|x|) of the float64 definition, and equals the generic
// level's steps bit for bit.
func TestBackendGELUThreadsAgree(t *testing.T) {
	b := NewBackend(2)
	defer b.Close()
	x := randVec(rand.New(rand.NewPCG(45, 46)), 3*4096+7, 3)
	out := make([]float32, len(x))
	if err := b.GELU(out, x); err != nil {
		t.Fatal(err)
	}
	steps := make([]float32, len(x))
	geluGeneric(steps, x)
	for i, v := range x {
		f := float64(v)
		if want := 0.5 * f * (1 + math.Erf(f/math.Sqrt2)); !(math.Abs(float64(out[i])-want) <= 3e-7*math.Abs(f)) {
			t.Fatalf("GELU(%v) = %v, want %v", v, out[i], want)
		}
		if out[i] != steps[i] {
			t.Fatalf("GELU(%v) = %v split over the pool, %v in one piece", v, out[i], steps[i])
		}
	}
}
