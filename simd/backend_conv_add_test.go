package simd

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBackendConvAdd checks ConvAdd's contract at every level and
// precision: y0 + Conv(x), each output rounded after its conv value (the
// bits of Conv, checked against PyTorch's definition by the conv tests, then
// a float32 add), whether it runs fused (the VDPBF16PS kernel's stores) or
// not; over partial panels, dilation phases, batches, 7 and 6 panels, and
// rows split over 2 threads.
func TestBackendConvAdd(t *testing.T) {
	cases := []struct{ out, in, k, d, m, batch int }{
		{16, 8, 7, 1, 9, 2},
		{17, 5, 7, 3, 13, 1},
		{33, 19, 7, 9, 11, 3},
		{96, 96, 1, 1, 23, 2},
		{112, 24, 7, 1, 17, 2},
		{96, 32, 7, 1, 50, 2},
		{32, 64, 3, 1, 100, 1},
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			r := rand.New(rand.NewPCG(21, 22))
			for _, prec := range []string{"fp32", "bf16", "int8"} {
				for _, c := range cases {
					if prec == "int8" && c.in*c.k%4 != 0 {
						continue
					}
					w, bias := randVec(r, c.out*c.in*c.k, 0.3), randVec(r, c.out, 1)
					if c.d == 3 {
						bias = nil // and a conv without one
					}
					h, err := b.NewConv(c.out, c.in, c.k, c.d, w, bias, prec)
					if err != nil {
						t.Fatal(err)
					}
					x := randVec(r, c.batch*((c.k-1)*c.d+c.m)*c.in, 1)
					y0 := randVec(r, c.batch*c.m*c.out, 2)
					conv := make([]float32, len(y0))
					if err := b.Conv(conv, x, c.m, c.batch, h); err != nil {
						t.Fatal(err)
					}
					y := append([]float32(nil), y0...)
					if err := b.ConvAdd(y, x, c.m, c.batch, h); err != nil {
						t.Fatal(err)
					}
					for i := range y {
						if want := y0[i] + conv[i]; math.Float32bits(y[i]) != math.Float32bits(want) {
							t.Fatalf("%s %d thread(s) conv %+v: y[%d] = %v, want %v + %v = %v", prec, threads, c, i, y[i], y0[i], conv[i], want)
						}
					}
				}
			}
			b.Close()
		}
	})
}

// TestBackendConvAddErrors checks that ConvAdd refuses a bad handle and
// bad lengths with errors that name them, and leaves y alone.
func TestBackendConvAddErrors(t *testing.T) {
	b := NewBackend(1)
	defer b.Close()
	r := rand.New(rand.NewPCG(1, 2))
	h, err := b.NewConv(16, 8, 3, 1, randVec(r, 16*8*3, 0.3), nil, "bf16")
	if err != nil {
		t.Fatal(err)
	}
	y := randVec(r, 4*16, 1)
	y0 := append([]float32(nil), y...)
	for _, bad := range []struct {
		name string
		err  error
	}{
		{"len(x)", b.ConvAdd(y, make([]float32, 5*8), 4, 1, h)},
		{"len(y)", b.ConvAdd(y[:63], make([]float32, 6*8), 4, 1, h)},
		{"handle", b.ConvAdd(y, make([]float32, 6*8), 4, 1, h+100)},
		{"rows", b.ConvAdd(y, make([]float32, 6*8), 0, 1, h)},
	} {
		if bad.err == nil {
			t.Errorf("%s: no error", bad.name)
		} else if !strings.Contains(bad.err.Error(), "simd") {
			t.Errorf("%s: error %q does not name the backend", bad.name, bad.err)
		}
	}
	for i := range y {
		if y[i] != y0[i] {
			t.Fatalf("y[%d] changed by a refused call", i)
		}
	}
}
