package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvGemmLevels checks ConvGemm at every level against the float64
// sum of its reference loop, over sizes (rows 1 … 14 and 37, outputs
// around the panel width, K small, odd and past a panel's cache chunk,
// overlapping and gapped row strides), misaligned starts, guard bands
// around the outputs, and unchanged inputs.
func TestConvGemmLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	type shape struct{ m, out, k, ldx, ldy int }
	var shapes []shape
	for _, m := range []int{1, 2, 5, 6, 7, 11, 12, 13, 14, 37} {
		for _, out := range []int{1, 15, 16, 17, 33, 97} {
			for _, k := range []int{1, 2, 7, 31, 97, 2051} {
				ldx := k
				if k > 2 {
					ldx = k / 3 // overlapping rows: a conv's im2col view
				}
				if m%2 == 1 {
					ldx = k + 3 // gapped rows
				}
				shapes = append(shapes, shape{m, out, k, ldx, out + m%3})
			}
		}
	}
	if testing.Short() {
		shapes = shapes[:len(shapes)/3]
	}
	eachLevel(t, func(t *testing.T) {
		for _, s := range shapes {
			w := randVec(r, s.out*s.k, 1)
			wm, err := NewF32Matrix(w, s.out, s.k)
			if err != nil {
				t.Fatal(err)
			}
			xb := randVec(r, 1+(s.m-1)*s.ldx+s.k, 1)
			x := xb[1:] // misaligned start
			xc := append([]float32(nil), xb...)
			const guard = 5
			yb := make([]float32, guard+(s.m-1)*s.ldy+s.out+guard)
			for i := range yb {
				yb[i] = -7
			}
			y := yb[guard : len(yb)-guard]
			ConvGemm(y, s.ldy, x, s.ldx, s.m, wm)
			what := fmt.Sprintf("ConvGemm(m %d, out %d, K %d, ldx %d, ldy %d)", s.m, s.out, s.k, s.ldx, s.ldy)
			for i := 0; i < guard; i++ {
				if yb[i] != -7 || yb[len(yb)-1-i] != -7 {
					t.Fatalf("%s: guard overwritten", what)
				}
			}
			for i := range xb {
				if math.Float32bits(xb[i]) != math.Float32bits(xc[i]) {
					t.Fatalf("%s: input modified", what)
				}
			}
			for i := 0; i < s.m; i++ {
				for o := 0; o < s.out; o++ {
					var want, mag float64
					for kk := 0; kk < s.k; kk++ {
						p := float64(x[i*s.ldx+kk]) * float64(w[o*s.k+kk])
						want += p
						mag += math.Abs(p)
					}
					got := float64(y[i*s.ldy+o])
					if d := math.Abs(got - want); d > float64(s.k+2)*0x1p-23*mag {
						t.Fatalf("%s row %d col %d = %v, want %v", what, i, o, got, want)
					}
				}
				for o := s.out; o < s.ldy && i < s.m-1; o++ {
					if y[i*s.ldy+o] != -7 {
						t.Fatalf("%s row %d col %d (between rows) overwritten", what, i, o)
					}
				}
			}
		}
	})
}

// TestConvGemmRowsIndependent: each row's result is the same bits
// whichever rows run with it (the property exact streaming rests on).
func TestConvGemmRowsIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	out, k, ldx, m := 137, 300, 100, 23
	wm, _ := NewF32Matrix(randVec(r, out*k, 1), out, k)
	x := randVec(r, (m-1)*ldx+k, 1)
	eachLevel(t, func(t *testing.T) {
		whole := make([]float32, m*out)
		ConvGemm(whole, out, x, ldx, m, wm)
		for i := 0; i < m; i++ {
			one := make([]float32, out)
			ConvGemm(one, out, x[i*ldx:], ldx, 1, wm)
			for o := range one {
				if math.Float32bits(one[o]) != math.Float32bits(whole[i*out+o]) {
					t.Fatalf("row %d col %d: %v alone, %v with the others", i, o, one[o], whole[i*out+o])
				}
			}
		}
	})
}

// groupKernelGo emulates a g-row group kernel in Go with the generic
// level's arithmetic (float32 products and sums in input order).
func groupKernelGo(g int) convGroupKernel {
	return func(y []float32, ldy int, x []float32, ldx, k int, wd []float32, np int) {
		_ = x[(g-1)*ldx+k-1] // the kernel reads g whole rows
		for p := 0; p < np; p++ {
			pd := wd[p*PanelRows*k:]
			for j := 0; j < g; j++ {
				var acc [PanelRows]float32
				for kk := 0; kk < k; kk++ {
					xv := x[j*ldx+kk]
					for r := range acc {
						acc[r] = float32(acc[r] + float32(xv*pd[kk*PanelRows+r]))
					}
				}
				copy(y[j*ldy+p*PanelRows:][:PanelRows], acc[:])
			}
		}
	}
}

// TestConvGemmGroupsPlumbing checks the grouped path (full groups, the
// partial last panel, the padded leftover rows, panel chunks) with an
// emulated kernel of 8 (the AVX-512 level's), 6 and 3 rows: it must give
// the generic level's bits, on a machine without AVX-512 too.
func TestConvGemmGroupsPlumbing(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	for _, g := range []int{8, 6, 3} {
		for _, s := range []struct{ m, out, k, ldx int }{{1, 5, 7, 7}, {8, 16, 9, 3}, {13, 33, 31, 10}, {37, 40, 2200, 700}, {17, 1, 672, 96}} {
			w := randVec(r, s.out*s.k, 1)
			wm, _ := NewF32Matrix(w, s.out, s.k)
			x := randVec(r, (s.m-1)*s.ldx+s.k, 1)
			want := make([]float32, s.m*s.out)
			convGemmGeneric(want, s.out, x, s.ldx, s.m, wm, 0, wm.panels)
			got := make([]float32, s.m*s.out)
			pad := make([]float32, (g-1)*s.ldx+s.k)
			fillConvPadG(g, pad, x, s.ldx, s.m, s.k)
			// Two panel ranges, as two threads would run them.
			half := wm.panels / 2
			tiles := make([]float32, convTileLen(g, wm))
			convGemmGroups(g, groupKernelGo(g), got, s.out, x, s.ldx, s.m, wm, 0, half, pad, tiles)
			convGemmGroups(g, groupKernelGo(g), got, s.out, x, s.ldx, s.m, wm, half, wm.panels, pad, tiles)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("g %d %+v: y[%d] = %v, want %v", g, s, i, got[i], want[i])
				}
			}
		}
	}
}

// TestBackendConvGroupedPath runs the Backend's convs through the grouped
// path (the AVX-512 level's: small jobs packed, larger ones with padded
// leftovers, bias per panel chunk, one and two threads) with emulated
// 8- and 3-row kernels of the generic arithmetic: the outputs must be the
// generic level's bits, so the path is checked on machines without
// AVX-512.
func TestBackendConvGroupedPath(t *testing.T) {
	defer Use(Generic)()
	r := rand.New(rand.NewPCG(57, 58))
	cases := []struct{ out, in, k, d, m, batch int }{
		{40, 24, 7, 9, 32, 1}, // phases of 3–4 rows: packed
		{33, 16, 7, 3, 11, 4}, // batch of short phases
		{17, 8, 7, 1, 40, 2},  // long jobs with leftovers
		{1, 96, 7, 1, 37, 1},  // one partial panel
		{20, 12, 3, 2, 5, 3},
	}
	for _, g := range []int{8, 3} {
		for _, threads := range []int{1, 2} {
			ref, grp := NewBackend(threads), NewBackend(threads)
			grp.groupHook = &convGroupHook{g: g, kern: groupKernelGo(g)}
			for _, c := range cases {
				w, bias := randVec(r, c.out*c.in*c.k, 0.3), randVec(r, c.out, 1)
				x := randVec(r, c.batch*((c.k-1)*c.d+c.m)*c.in, 1)
				want, got := make([]float32, c.batch*c.m*c.out), make([]float32, c.batch*c.m*c.out)
				for _, p := range []struct {
					b *Backend
					y []float32
				}{{ref, want}, {grp, got}} {
					h, err := p.b.NewConv(c.out, c.in, c.k, c.d, w, bias, "fp32")
					if err != nil {
						t.Fatal(err)
					}
					if err := p.b.Conv(p.y, x, c.m, c.batch, h); err != nil {
						t.Fatal(err)
					}
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("g %d threads %d %+v: y[%d] = %v, generic %v", g, threads, c, i, got[i], want[i])
					}
				}
				// A transposed conv: one job of batch·m rows.
				tw := randVec(r, c.in*c.out*4, 0.3)
				tx := randVec(r, c.batch*c.m*c.in, 1)
				ty, ry := make([]float32, c.batch*c.m*2*c.out), make([]float32, c.batch*c.m*2*c.out)
				for _, p := range []struct {
					b *Backend
					y []float32
				}{{ref, ry}, {grp, ty}} {
					h, err := p.b.NewConvTranspose(c.in, c.out, 4, 2, tw, bias, "fp32")
					if err != nil {
						t.Fatal(err)
					}
					if err := p.b.ConvTranspose(p.y, tx, c.m, c.batch, h, make([]float32, c.batch*2*c.out)); err != nil {
						t.Fatal(err)
					}
				}
				for i := range ry {
					if math.Float32bits(ty[i]) != math.Float32bits(ry[i]) {
						t.Fatalf("g %d threads %d %+v: transposed y[%d] = %v, generic %v", g, threads, c, i, ty[i], ry[i])
					}
				}
			}
			ref.Close()
			grp.Close()
		}
	}
}
