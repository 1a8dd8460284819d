package simd

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bf16Ref rounds v to 8 significant bits, to nearest even, with math/big
// (bfloat16's rounding for normal values, written independently of
// F32ToBF16).
func bf16Ref(v float32) float32 {
	f := new(big.Float).SetPrec(8).SetMode(big.ToNearestEven)
	f.SetFloat64(float64(v))
	r, _ := f.Float32()
	return r
}

func TestF32ToBF16(t *testing.T) {
	cases := []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // 1 + 2⁻⁸: a tie, to even
		{0x3f818000, 0x3f82}, // 1 + 3·2⁻⁸: a tie, to even
		{0x3f808001, 0x3f81}, // just above the tie
		{0x3f807fff, 0x3f80}, // just below
		{0x80000000, 0x8000}, // −0
		{0xbf7fffff, 0xbf80}, // −(1 − 2⁻²⁴) rounds to −1
		{0x7f800000, 0x7f80}, // +Inf
	}
	for _, c := range cases {
		if got := F32ToBF16(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	if got := F32ToBF16(float32(math.NaN())); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("F32ToBF16(NaN) = %#04x, not a NaN", got)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100000; i++ {
		v := float32(r.NormFloat64() * math.Exp(r.NormFloat64()*10))
		got := math.Float32frombits(uint32(F32ToBF16(v)) << 16)
		if want := bf16Ref(v); got != want {
			t.Fatalf("F32ToBF16(%v (%#08x)) = %v, want %v", v, math.Float32bits(v), got, want)
		}
	}
}

// fmaRef is a·b + c exactly (math/big), rounded once to float32.
func fmaRef(a, b, c float32) float32 {
	p := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	p.Mul(p, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	p.Add(p, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	r, _ := p.Float32()
	return r
}

func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	rnd := func(spread float64) float32 {
		return float32(r.NormFloat64() * math.Exp(r.NormFloat64()*spread))
	}
	for i := 0; i < 200000; i++ {
		a, b, c := rnd(3), rnd(3), rnd(3)
		switch i % 4 {
		case 1: // c cancels most of the product: the low bits decide
			c = -float32(float64(a) * float64(b))
			c = math.Float32frombits(math.Float32bits(c) + uint32(r.IntN(5)) - 2)
		case 2: // b a bf16 value, as in the kernel
			b = bf16Ref(b)
		case 3: // c far larger or smaller than the product
			c = rnd(12)
		}
		got, want := fma32(a, b, c), fmaRef(a, b, c)
		if math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
	// Double-rounding traps: a·b + c exactly halfway between two float32
	// after rounding to float64, but not before.
	a, b := float32(1+0x1p-12), float32(1+0x1p-12) // a·b = 1 + 2⁻¹¹ + 2⁻²⁴
	for _, c := range []float32{0x1p-30, -0x1p-30, 0x1p-60, 0} {
		if got, want := fma32(a, b, c), fmaRef(a, b, c); got != want {
			t.Errorf("fma32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
}

// bf16Weights returns w rounded to bf16 (the reference's weights).
func bf16Weights(w []float32) []float32 {
	o := make([]float32, len(w))
	for i, v := range w {
		o[i] = bf16Ref(v)
	}
	return o
}

// dotKey names the bf16 arithmetic of the active level: the levels that
// share one give the same bits.
func dotKey() string {
	if bf16Dot(Active()) {
		return "vdpbf16ps "
	}
	return ""
}

// TestBackendConvBF16 checks bf16 convs and transposed convs against the
// definitions on the rounded weights (and, where VDPBF16PS computes them,
// the rounded inputs, and the instruction's definition bit for bit), that
// every level of one arithmetic gives the same bits, and that streaming in
// pieces gives the bits of one call.
func TestBackendConvBF16(t *testing.T) {
	convs := []struct{ out, in, k, d, m, batch int }{
		{1, 1, 1, 1, 1, 1},
		{16, 8, 7, 1, 9, 2},
		{17, 5, 7, 3, 13, 1},
		{33, 19, 7, 9, 11, 3},
		{96, 96, 1, 1, 23, 2},
		{112, 24, 7, 1, 17, 2}, // 7 panels: 4, a pair, 1
		{96, 32, 7, 1, 50, 2},  // 6 panels: 4 and a pair; 100 rows split over threads
		{32, 16, 7, 1, 9, 1},   // 2 panels: a pair alone
		{20, 129, 7, 1, 29, 1},
		{20, 300, 7, 1, 19, 1}, // K = 2100
		{80, 400, 7, 1, 13, 1}, // K = 2800: blocks of 1024 pairs, 4 panels and 1
		{96, 32, 7, 3, 50, 2},  // dilated, in even: taps read in place (VDPBF16PS)
		{48, 64, 7, 9, 40, 3},  // 3 panels: a pair and one; taps 9 rows apart
		{16, 2, 3, 5, 7, 1},    // one pair per tap
		{64, 32, 1, 1, 97, 2},  // k = 1, few panels, many rows: row blocks round their own inputs
		{1, 96, 7, 1, 200, 2},  // one output (the codec's last conv): a partial panel, rows split over threads
		{17, 32, 3, 1, 60, 2},  // a panel and a partial one, rows split
	}
	tconvs := []struct{ in, out, k, s, m, batch int }{
		{5, 3, 4, 2, 6, 1},
		{24, 17, 16, 8, 4, 2},
		{32, 40, 8, 4, 7, 3},
	}
	bits := map[string][]float32{} // per case, the first level's output
	same := func(t *testing.T, key string, y []float32) {
		t.Helper()
		prev, ok := bits[key]
		if !ok {
			bits[key] = append([]float32(nil), y...)
			return
		}
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(prev[i]) {
				t.Fatalf("%s: y[%d] = %v at this level, %v at the first", key, i, y[i], prev[i])
			}
		}
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			r := rand.New(rand.NewPCG(11, 12))
			for ci, c := range convs {
				w := randVec(r, c.out*c.in*c.k, 0.3)
				bias := randVec(r, c.out, 1)
				h, err := b.NewConv(c.out, c.in, c.k, c.d, w, bias, "bf16")
				if err != nil {
					t.Fatal(err)
				}
				hist := (c.k - 1) * c.d
				T := hist + c.m
				x := randVec(r, c.batch*T*c.in, 1)
				y := make([]float32, c.batch*c.m*c.out)
				if err := b.Conv(y, x, c.m, c.batch, h); err != nil {
					t.Fatal(err)
				}
				wb := bf16Weights(w)
				xr := x // the VDPBF16PS path rounds the inputs to bf16 too
				if bf16Dot(Active()) {
					xr = bf16Weights(x)
				}
				for s := 0; s < c.batch; s++ {
					want, mag := refConv(xr[s*T*c.in:(s+1)*T*c.in], T, c.in, c.out, c.k, c.d, wb, bias)
					checkClose(t, "Conv bf16", y[s*c.m*c.out:(s+1)*c.m*c.out], want, mag, c.in*c.k)
				}
				if bf16Dot(Active()) {
					// The kernel's bits are the instruction's definition's,
					// on each output row's k taps gathered in order.
					p := b.objs[h].conv.bf
					K := c.k * c.in
					for s := 0; s < c.batch; s++ {
						seg := x[s*T*c.in : (s+1)*T*c.in]
						xb := make([]uint16, c.m*(K+1))
						for i := 0; i < c.m; i++ {
							for j := 0; j < c.k; j++ {
								for ch := 0; ch < c.in; ch++ {
									xb[i*(K+1)+j*c.in+ch] = bf16RNE(seg[(i+j*c.d)*c.in+ch])
								}
							}
						}
						def := make([]float32, c.m*c.out)
						convGemmBF16DotGeneric(def, c.out, xb, K+1, c.m, p, 0, p.dims.panels)
						for i := 0; i < c.m; i++ {
							Add(def[i*c.out:(i+1)*c.out], bias)
						}
						for i, v := range def {
							if got := y[s*c.m*c.out+i]; math.Float32bits(got) != math.Float32bits(v) {
								t.Fatalf("conv %+v segment %d: y[%d] = %v, the VDPBF16PS definition gives %v", c, s, i, got, v)
							}
						}
					}
				}
				same(t, dotKey()+"conv "+string(rune('a'+ci)), y)
				// Segment 0 pushed in pieces gives the same bits.
				for t0 := 0; t0 < c.m; {
					n := 1 + r.IntN(c.m-t0)
					yp := make([]float32, n*c.out)
					if err := b.Conv(yp, x[t0*c.in:(t0+hist+n)*c.in], n, 1, h); err != nil {
						t.Fatal(err)
					}
					for i, v := range yp {
						if math.Float32bits(v) != math.Float32bits(y[t0*c.out+i]) {
							t.Fatalf("conv %+v rows %d..%d: y[%d] = %v, one call %v", c, t0, t0+n, i, v, y[t0*c.out+i])
						}
					}
					t0 += n
				}
			}
			for ci, c := range tconvs {
				w := randVec(r, c.in*c.out*c.k, 0.3)
				h, err := b.NewConvTranspose(c.in, c.out, c.k, c.s, w, nil, "bf16")
				if err != nil {
					t.Fatal(err)
				}
				x := randVec(r, c.batch*c.m*c.in, 1)
				tail := (c.k - c.s) * c.out
				carry := make([]float32, c.batch*tail)
				y := make([]float32, c.batch*c.m*c.s*c.out)
				if err := b.ConvTranspose(y, x, c.m, c.batch, h, carry); err != nil {
					t.Fatal(err)
				}
				wb := bf16Weights(w)
				xr := x
				if bf16Dot(Active()) {
					xr = bf16Weights(x)
				}
				for s := 0; s < c.batch; s++ {
					want, mag := refConvT(xr[s*c.m*c.in:(s+1)*c.m*c.in], c.m, c.in, c.out, c.k, c.s, wb, nil)
					full := append(append([]float32(nil), y[s*c.m*c.s*c.out:(s+1)*c.m*c.s*c.out]...), carry[s*tail:(s+1)*tail]...)
					checkClose(t, "ConvTranspose bf16", full, want, mag, c.in*2+2)
				}
				same(t, dotKey()+"tconv "+string(rune('a'+ci)), append(y, carry...))
			}
			b.Close()
		}
	})
}

// TestBF16PanelsOneLayout: on a CPU with AVX512_BF16 the bf16 conv weights
// are packed in the VDPBF16PS layout alone, and the panel layout a level
// without it asks for (panelData) holds, slot by slot, the weights rounded
// to bf16 where the layout's definition puts them: panel r/16, input k,
// slot bf16Slot(r%16); for partial panels and odd input counts.
func TestBF16PanelsOneLayout(t *testing.T) {
	if !bf16Dot(AVX512VNNI) {
		t.Skip("this CPU has no AVX512_BF16: the panels are packed directly")
	}
	r := rand.New(rand.NewPCG(31, 32))
	for _, sh := range [][2]int{{1, 1}, {16, 8}, {17, 5}, {40, 33}, {96, 672}} {
		rows, cols := sh[0], sh[1]
		w := randVec(r, rows*cols, 0.5)
		p, err := newBF16Panels(w, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		if p.data != nil || p.dot == nil {
			t.Fatalf("%d×%d: panels %v, pairs %v; want the pairs alone", rows, cols, p.data != nil, p.dot != nil)
		}
		got := p.panelData()
		if want := p.dims.panels * PanelRows * cols; len(got) != want {
			t.Fatalf("%d×%d: %d panel values, want %d", rows, cols, len(got), want)
		}
		for row := 0; row < rows; row++ {
			for k := 0; k < cols; k++ {
				at := (row/PanelRows)*PanelRows*cols + k*PanelRows + bf16Slot(row%PanelRows)
				if want := F32ToBF16(w[row*cols+k]); got[at] != want {
					t.Fatalf("%d×%d: w[%d][%d] at slot %d is %#04x, want %#04x", rows, cols, row, k, at, got[at], want)
				}
			}
		}
	}
}
