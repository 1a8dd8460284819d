package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestBackendSnakeConvTranspose checks SnakeConvTranspose against its
// definition (Snake into a scratch, then ConvTranspose: each checked
// against PyTorch's definitions by their own tests) bit for bit, at every
// level and precision, on 1 and 2 threads: the outputs and the carry, over
// two calls in a row (the second starting from the first's carry). Tiles
// of 6 and 12 input rows put tile edges everywhere; kernels of twice the
// stride and not a multiple of it; segments shorter than a tile. On the
// VDPBF16PS path with enough tiles it must run fused; where it declines,
// it must change nothing.
func TestBackendSnakeConvTranspose(t *testing.T) {
	cases := []struct{ in, out, k, st, m, batch, tile int }{
		{32, 16, 6, 3, 40, 2, 6},
		{48, 32, 8, 4, 37, 3, 12},
		{16, 16, 5, 2, 30, 1, 6}, // kernel not a multiple of the stride
		{64, 16, 4, 2, 4, 4, 6},  // segments shorter than a tile
		{24, 16, 2, 1, 25, 2, 6},
		{16, 32, 2, 2, 30, 2, 6}, // kernel = stride: no carry
		{32, 16, 6, 3, 20, 1, 0}, // the default tile: one per segment, declined
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			defer b.Close()
			r := rand.New(rand.NewPCG(41, 42))
			for _, prec := range []string{"fp32", "bf16", "int8"} {
				for _, c := range cases {
					if prec == "int8" && c.in%4 != 0 {
						continue
					}
					hs, err := b.NewSnake(c.in, randVec(r, c.in, 0.5), randVec(r, c.in, 0.5))
					if err != nil {
						t.Fatal(err)
					}
					hw, err := b.NewConvTranspose(c.in, c.out, c.k, c.st, randVec(r, c.in*c.out*c.k, 0.3), randVec(r, c.out, 0.5), prec)
					if err != nil {
						t.Fatal(err)
					}
					tail := (c.k - c.st) * c.out
					carryWant := randVec(r, c.batch*tail, 1)
					carry := slices.Clone(carryWant)
					for call := 0; call < 2; call++ {
						x := randVec(r, c.batch*c.m*c.in, 2)
						want := make([]float32, c.batch*c.m*c.st*c.out)
						sn := make([]float32, len(x))
						if err := b.Snake(sn, x, c.batch*c.m, hs); err != nil {
							t.Fatal(err)
						}
						if err := b.ConvTranspose(want, sn, c.m, c.batch, hw, carryWant); err != nil {
							t.Fatal(err)
						}
						b.SetTileRows(c.tile)
						y := randVec(r, len(want), 1)
						y0, carry0 := slices.Clone(y), slices.Clone(carry)
						fused, err := b.SnakeConvTranspose(y, x, c.m, c.batch, hs, hw, carry)
						b.SetTileRows(0)
						if err != nil {
							t.Fatal(err)
						}
						T := b.tconvTileRows(c.k * c.out)
						if c.tile > 0 {
							T = c.tile
						}
						canFuse := prec == "bf16" && b.rowListed() && bf16Dot(active) && c.batch*((c.m+T-1)/T) >= 2*threads
						if fused != canFuse {
							t.Fatalf("%s %d thread(s) %+v: fused %v, want %v", prec, threads, c, fused, canFuse)
						}
						if !fused {
							if !slices.Equal(y, y0) || !slices.Equal(carry, carry0) {
								t.Fatalf("%s %d thread(s) %+v: a declined SnakeConvTranspose changed its arguments", prec, threads, c)
							}
							copy(y, want)
							copy(carry, carryWant)
						}
						for i := range want {
							if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s %d thread(s) %+v call %d: y[%d] (row %d) = %v, want %v", prec, threads, c, call, i, i/c.out, y[i], want[i])
							}
						}
						for i := range carryWant {
							if math.Float32bits(carry[i]) != math.Float32bits(carryWant[i]) {
								t.Fatalf("%s %d thread(s) %+v call %d: carry[%d] = %v, want %v", prec, threads, c, call, i, carry[i], carryWant[i])
							}
						}
					}
				}
			}
		}
	})
}

// TestBackendSnakeConvTransposeErrors checks that SnakeConvTranspose
// refuses bad handles, mismatched channels and bad lengths with errors
// that name them, and leaves y and the carry alone.
func TestBackendSnakeConvTransposeErrors(t *testing.T) {
	b := NewBackend(1)
	defer b.Close()
	r := rand.New(rand.NewPCG(1, 2))
	hs, _ := b.NewSnake(16, randVec(r, 16, 0.5), randVec(r, 16, 0.5))
	hs8, _ := b.NewSnake(8, randVec(r, 8, 0.5), randVec(r, 8, 0.5))
	hw, err := b.NewConvTranspose(16, 16, 4, 2, randVec(r, 16*16*4, 0.3), nil, "bf16")
	if err != nil {
		t.Fatal(err)
	}
	x, y, carry := randVec(r, 2*10*16, 1), randVec(r, 2*20*16, 1), randVec(r, 2*2*16, 1)
	y0, carry0 := slices.Clone(y), slices.Clone(carry)
	for _, bad := range []struct {
		name     string
		y, x, c  []float32
		m, batch int
		s, w     int32
		want     string
	}{
		{"snake handle", y, x, carry, 10, 2, 99, hw, "snake handle 99"},
		{"conv handle", y, x, carry, 10, 2, hs, hs, "holds a snake"},
		{"channels", y, x, carry, 10, 2, hs8, hw, "snake of 8 channels"},
		{"x length", y, x[:5], carry, 10, 2, hs, hw, "len(x) 5"},
		{"y length", y[:7], x, carry, 10, 2, hs, hw, "len(y) 7"},
		{"carry length", y, x, carry[:3], 10, 2, hs, hw, "len(carry) 3"},
		{"segments", y, x, carry, 10, 0, hs, hw, "0 segments"},
	} {
		fused, err := b.SnakeConvTranspose(bad.y, bad.x, bad.m, bad.batch, bad.s, bad.w, bad.c)
		if err == nil || fused || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: SnakeConvTranspose = %v, %v; want an error naming %q", bad.name, fused, err, bad.want)
		}
		if !slices.Equal(y, y0) || !slices.Equal(carry, carry0) {
			t.Fatalf("%s: a refused SnakeConvTranspose changed its arguments", bad.name)
		}
	}
}
