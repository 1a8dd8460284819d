package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// resUnitComposed is ResUnit's definition as the four calls it replaces:
// Snake₁ written behind each segment's history, Conv₁ over that, Snake₂,
// then ConvAdd into x; hist gets each segment's last H rows of cat.
func resUnitComposed(t *testing.T, b *Backend, x, hist []float32, m, batch, ch, H int, s1, c1, s2, c2 int32) {
	t.Helper()
	seg := (H + m) * ch
	cat := make([]float32, batch*seg)
	for s := 0; s < batch; s++ {
		dst := cat[s*seg : (s+1)*seg]
		copy(dst, hist[s*H*ch:(s+1)*H*ch])
		if err := b.Snake(dst[H*ch:], x[s*m*ch:(s+1)*m*ch], m, s1); err != nil {
			t.Fatal(err)
		}
		copy(hist[s*H*ch:(s+1)*H*ch], dst[m*ch:])
	}
	h := make([]float32, batch*m*ch)
	if err := b.Conv(h, cat, m, batch, c1); err != nil {
		t.Fatal(err)
	}
	if err := b.Snake(h, h, batch*m, s2); err != nil {
		t.Fatal(err)
	}
	if err := b.ConvAdd(x, h, m, batch, c2); err != nil {
		t.Fatal(err)
	}
}

// TestBackendResUnit checks ResUnit against its definition (the Snake,
// Conv and ConvAdd calls it replaces, each checked against PyTorch's
// definitions by their own tests) bit for bit, at every level and
// precision, on 1 and 2 threads: x and the history both. Tiles of 6 and 12
// rows put tile edges inside the dilated taps' reach (H = 6, 18 and 54
// rows), in segments shorter than the history, than a tile, and of a
// partial last tile. On the VDPBF16PS path and the int8 VNNI kernel, with
// enough tiles, it must run fused; where it declines, it must change nothing.
func TestBackendResUnit(t *testing.T) {
	cases := []struct{ ch, d, m, batch, tile int }{
		{16, 1, 40, 2, 6},
		{32, 3, 37, 3, 12},
		{96, 9, 100, 2, 12},
		{96, 9, 5, 4, 6},  // segments shorter than the history
		{48, 3, 60, 1, 0}, // the default tile: one per segment, declined
		{96, 1, 250, 1, 6},
	}
	eachLevel(t, func(t *testing.T) {
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			defer b.Close()
			r := rand.New(rand.NewPCG(31, 32))
			for _, prec := range []string{"fp32", "bf16", "int8"} {
				for _, c := range cases {
					ch, H := c.ch, 6*c.d
					snake := func() int32 {
						h, err := b.NewSnake(ch, randVec(r, ch, 0.5), randVec(r, ch, 0.5))
						if err != nil {
							t.Fatal(err)
						}
						return h
					}
					conv := func(k, d int) int32 {
						h, err := b.NewConv(ch, ch, k, d, randVec(r, ch*ch*k, 0.3), randVec(r, ch, 0.5), prec)
						if err != nil {
							t.Fatal(err)
						}
						return h
					}
					s1, c1, s2, c2 := snake(), conv(7, c.d), snake(), conv(1, 1)
					x0 := randVec(r, c.batch*c.m*ch, 2)
					hist0 := randVec(r, c.batch*H*ch, 1)
					want, wantHist := slices.Clone(x0), slices.Clone(hist0)
					resUnitComposed(t, b, want, wantHist, c.m, c.batch, ch, H, s1, c1, s2, c2)

					b.SetTileRows(c.tile)
					x, hist := slices.Clone(x0), slices.Clone(hist0)
					fused, err := b.ResUnit(x, hist, c.m, c.batch, s1, c1, s2, c2)
					b.SetTileRows(0)
					if err != nil {
						t.Fatal(err)
					}
					T := resTileRows(ch, c.tile)
					onKernel := prec == "bf16" && b.rowListed() && bf16Dot(active) || prec == "int8" && q8Asm(active)
					canFuse := onKernel && c.batch*((c.m+T-1)/T) >= 2*threads
					if fused != canFuse {
						t.Fatalf("%s %d thread(s) %+v: fused %v, want %v", prec, threads, c, fused, canFuse)
					}
					if !fused {
						if !slices.Equal(x, x0) || !slices.Equal(hist, hist0) {
							t.Fatalf("%s %d thread(s) %+v: a declined ResUnit changed its arguments", prec, threads, c)
						}
						continue
					}
					for i := range want {
						if math.Float32bits(x[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s %d thread(s) %+v: x[%d] (row %d) = %v, want %v", prec, threads, c, i, i/ch, x[i], want[i])
						}
					}
					for i := range wantHist {
						if math.Float32bits(hist[i]) != math.Float32bits(wantHist[i]) {
							t.Fatalf("%s %d thread(s) %+v: hist[%d] = %v, want %v", prec, threads, c, i, hist[i], wantHist[i])
						}
					}
				}
			}
		}
	})
}

// TestBackendResUnitErrors checks that ResUnit refuses bad handles,
// mismatched channels and bad lengths with errors that name them, and
// leaves x and hist alone.
func TestBackendResUnitErrors(t *testing.T) {
	b := NewBackend(1)
	defer b.Close()
	r := rand.New(rand.NewPCG(1, 2))
	snake := func(ch int) int32 {
		h, err := b.NewSnake(ch, randVec(r, ch, 0.5), randVec(r, ch, 0.5))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	conv := func(out, in, k int) int32 {
		h, err := b.NewConv(out, in, k, 1, randVec(r, out*in*k, 0.3), nil, "bf16")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	s16, c7, c1 := snake(16), conv(16, 16, 7), conv(16, 16, 1)
	s32, c7wide, c3 := snake(32), conv(32, 16, 7), conv(16, 16, 3)
	x := randVec(r, 2*10*16, 1)
	hist := randVec(r, 2*6*16, 1)
	x0, hist0 := slices.Clone(x), slices.Clone(hist)
	for _, bad := range []struct {
		name           string
		x, hist        []float32
		m, batch       int
		s1, k1, s2, k2 int32
		want           string
	}{
		{"snake handle", x, hist, 10, 2, 99, c7, s16, c1, "snake handle 99"},
		{"conv handle is a snake", x, hist, 10, 2, s16, s16, s16, c1, "holds a snake"},
		{"channels", x, hist, 10, 2, s16, c7, s32, c1, "16 channels throughout"},
		{"wide conv", x, hist, 10, 2, s16, c7wide, s16, c1, "16→32 conv"},
		{"second kernel", x, hist, 10, 2, s16, c7, s16, c3, "kernel 1"},
		{"x length", x[:len(x)-1], hist, 10, 2, s16, c7, s16, c1, "len(x) 319"},
		{"hist length", x, hist[:16], 10, 2, s16, c7, s16, c1, "len(hist) 16"},
		{"rows", x, hist, 0, 2, s16, c7, s16, c1, "0 rows"},
	} {
		fused, err := b.ResUnit(bad.x, bad.hist, bad.m, bad.batch, bad.s1, bad.k1, bad.s2, bad.k2)
		if err == nil || fused || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: ResUnit = %v, %v; want an error naming %q", bad.name, fused, err, bad.want)
		}
		if !slices.Equal(x, x0) || !slices.Equal(hist, hist0) {
			t.Fatalf("%s: a refused ResUnit changed its arguments", bad.name)
		}
	}
}
