package simd

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refQ4 is the plain-Go definition of the 4-bit product: per block the
// exact integer Σ level·qx, then the float32 steps in the documented order.
func refQ4(x *Q8Input, w *Q4Matrix, i, r int) float32 {
	var acc float32
	for b := 0; b < w.nb; b++ {
		var isum int32
		var xs, ws float32
		for k := b * Q4Block; k < min(w.cols, (b+1)*Q4Block); k++ {
			lv, s := w.q4At(r, k)
			qx, t := x.at(i, k)
			isum += lv * qx
			ws, xs = s, t
		}
		acc = float32(acc + float32(float32(float32(isum)*xs)*ws))
	}
	return acc
}

func q4Cases() []q8Case {
	var cs []q8Case
	for _, cols := range []int{1, 31, 33, 100, 1024, 3072} {
		for _, rows := range []int{1, 15, 16, 17, 100, 136, 200} {
			for _, m := range []int{1, 2, 3, 5, 8, 9, 17} {
				cs = append(cs, q8Case{m, rows, cols, Q4Block})
			}
		}
	}
	for m := 1; m <= 40; m++ {
		cs = append(cs, q8Case{m, 33, 100, Q4Block})
	}
	return cs
}

func TestGemmQ4(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	type prepared struct {
		c    q8Case
		w    *Q4Matrix
		x    *Q8Input
		want []float32
	}
	var ps []prepared
	for n, c := range q4Cases() {
		levels := Q4Uniform
		if n%2 == 1 {
			levels = Q4NonUniform
		}
		w, err := QuantizeQ4(randWeights(rng, c.rows, c.cols, c.block), c.rows, c.cols, levels)
		if err != nil {
			t.Fatal(err)
		}
		x := NewQ8Input(c.m+rng.IntN(3), c.cols, c.block)
		x.Quantize(randActs(rng, c.m, c.cols), c.m)
		want := make([]float32, c.m*c.rows)
		for i := 0; i < c.m; i++ {
			for r := 0; r < c.rows; r++ {
				want[i*c.rows+r] = refQ4(x, w, i, r)
			}
		}
		ps = append(ps, prepared{c, w, x, want})
	}
	eachLevel(t, func(t *testing.T) {
		eachQuadPrefetch(func(pf bool) {
			for _, p := range ps {
				c := p.c
				checkGemmCase(t, fmt.Sprintf("GemmQ4(%dx%dx%d, quad prefetch %t)", c.m, c.cols, c.rows, pf), c, p.want, p.w.data, p.x,
					func(y []float32) { GemmQ4(y, p.x, p.w) },
					func(y []float32, r0, r1 int) { GemmQ4Rows(y, p.x, p.w, r0, r1) })
			}
		})
	})
}

// TestQuantizeQ4Nearest checks the quantizer against its definition: every
// weight decodes to level·s with s the block's bf16 scale, the level is the
// nearest one to w/s, an all-zero
// block decodes to zeros, and the block error is no worse than that of the
// plain absmax scale.
func TestQuantizeQ4Nearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, levels := range []Q4Levels{Q4Uniform, Q4NonUniform} {
		const rows, cols = 37, 100
		wf := randWeights(rng, rows, cols, Q4Block)
		w, err := QuantizeQ4(wf, rows, cols, levels)
		if err != nil {
			t.Fatal(err)
		}
		deq := make([]float32, rows*cols)
		w.Dequantize(deq)
		for r := 0; r < rows; r++ {
			for b := 0; b*Q4Block < cols; b++ {
				var errQ, errMax, amax float64
				end := float64(levels[15])
				for k := b * Q4Block; k < min(cols, (b+1)*Q4Block); k++ {
					if v := float64(wf[r*cols+k]); math.Abs(v) > amax {
						amax = math.Abs(v)
						end = float64(levels[15])
						if v < 0 {
							end = -float64(levels[0])
						}
					}
				}
				for k := b * Q4Block; k < min(cols, (b+1)*Q4Block); k++ {
					v, d := float64(wf[r*cols+k]), float64(deq[r*cols+k])
					_, s := w.q4At(r, k)
					if amax == 0 {
						if d != 0 {
							t.Fatalf("%v: zero block row %d col %d decodes to %v", levels, r, k, d)
						}
						continue
					}
					best := math.Inf(1)
					for _, l := range levels {
						best = math.Min(best, math.Abs(v-float64(l)*float64(s)))
					}
					if e := math.Abs(v - d); e > best*(1+1e-6)+1e-30 {
						t.Fatalf("%v row %d col %d: w %g decodes to %g (error %g), a level gives %g", levels, r, k, v, d, e, best)
					}
					errQ += (v - d) * (v - d)
					// the absmax scale's error (Q4_0's choice), for comparison
					// with its scale rounded to bf16 as stored
					sb := F32ToBF16(float32(amax / end))
					sm := float64(bf16Value(sb))
					bm := math.Inf(1)
					for _, l := range levels {
						bm = math.Min(bm, math.Abs(v-float64(l)*sm))
					}
					errMax += bm * bm
				}
				if errQ > errMax*1.05+1e-30 {
					t.Fatalf("%v row %d block %d: squared error %g above the absmax scale's %g", levels, r, b, errQ, errMax)
				}
			}
		}
	}
}

// TestGemmQ4Fidelity checks the product against the float product of the
// original values within what quantization allows per term: |x|·|w−ŵ| +
// |ŵ|·xs/2, with ŵ the dequantized weight.
func TestGemmQ4Fidelity(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []q8Case{{1, 17, 100, 32}, {4, 33, 1024, 32}, {9, 20, 333, 32}} {
		wf := make([]float32, c.rows*c.cols)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
		}
		xf := randActs(rng, c.m, c.cols)
		w, err := QuantizeQ4(wf, c.rows, c.cols, Q4NonUniform)
		if err != nil {
			t.Fatal(err)
		}
		deq := make([]float32, c.rows*c.cols)
		w.Dequantize(deq)
		x := NewQ8Input(c.m, c.cols, 32)
		x.Quantize(xf, c.m)
		y := make([]float32, c.m*c.rows)
		GemmQ4(y, x, w)
		var num, den float64
		for i := 0; i < c.m; i++ {
			for r := 0; r < c.rows; r++ {
				var exact, bound float64
				for k := 0; k < c.cols; k++ {
					xv, wv, dv := float64(xf[i*c.cols+k]), float64(wf[r*c.cols+k]), float64(deq[r*c.cols+k])
					exact += xv * wv
					_, xs := x.at(i, k)
					bound += math.Abs(xv)*math.Abs(wv-dv) + math.Abs(dv)*float64(xs)/2
				}
				d := math.Abs(float64(y[i*c.rows+r]) - exact)
				if d > bound*1.001+1e-4 {
					t.Fatalf("GemmQ4(%dx%dx%d) row %d col %d = %v, float product %v: |Δ| %g > bound %g",
						c.m, c.cols, c.rows, i, r, y[i*c.rows+r], exact, d, bound)
				}
				num += d * d
				den += exact * exact
			}
		}
		// Gaussian weights at 4 bits: a relative RMS error of about 0.1.
		if rel := math.Sqrt(num / den); rel > 0.2 {
			t.Fatalf("GemmQ4(%dx%dx%d): relative RMS error %.3f, want < 0.2", c.m, c.cols, c.rows, rel)
		}
	}
}

func TestQuantizeQ4Refuses(t *testing.T) {
	w := []float32{1, 2, 3, 4}
	if _, err := QuantizeQ4(w, 0, 4, Q4Uniform); err == nil {
		t.Fatal("rows 0 accepted")
	}
	if _, err := QuantizeQ4(w, 2, 3, Q4Uniform); err == nil {
		t.Fatal("length mismatch accepted")
	}
	bad := Q4Uniform
	bad[3], bad[4] = bad[4], bad[3]
	if _, err := QuantizeQ4(w, 2, 2, bad); err == nil {
		t.Fatal("a descending codebook accepted")
	}
	bad = Q4Uniform
	bad[0] = -128
	if _, err := QuantizeQ4(w, 2, 2, bad); err == nil {
		t.Fatal("level -128 accepted")
	}
	w[3] = float32(math.NaN())
	if _, err := QuantizeQ4(w, 2, 2, Q4Uniform); err == nil {
		t.Fatal("NaN accepted")
	}
}

// TestQ4MatrixFrom: a matrix rebuilt from its dims, codebook and packed
// bytes multiplies the same; a clone is an independent copy; bad sizes
// are refused.
func TestQ4MatrixFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, cols = 40, 200
	w, err := QuantizeQ4(randWeights(rng, rows, cols, 32), rows, cols, Q4NonUniform)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := NewQ4MatrixFrom(w.Rows(), w.Cols(), w.Levels(), append([]byte(nil), w.Data()...))
	if err != nil {
		t.Fatal(err)
	}
	x := NewQ8Input(3, cols, 32)
	x.Quantize(randActs(rng, 3, cols), 3)
	y1, y2 := make([]float32, 3*rows), make([]float32, 3*rows)
	GemmQ4(y1, x, w)
	GemmQ4(y2, x, w2)
	for i := range y1 {
		if math.Float32bits(y1[i]) != math.Float32bits(y2[i]) {
			t.Fatalf("rebuilt matrix: y[%d] = %v, want %v", i, y2[i], y1[i])
		}
	}
	// A clone holds the same bytes in memory of its own.
	c := w.Clone()
	if !bytes.Equal(c.Data(), w.Data()) || &c.Data()[0] == &w.Data()[0] || c.Rows() != rows || c.Cols() != cols || c.Levels() != w.Levels() {
		t.Fatal("Clone: not an independent copy of the matrix")
	}
	if _, err := NewQ4MatrixFrom(rows, cols+32, w.Levels(), w.Data()); err == nil {
		t.Fatal("wrong cols accepted")
	}
	if _, err := NewQ4MatrixFrom(rows, cols, w.Levels(), w.Data()[1:]); err == nil {
		t.Fatal("short data accepted")
	}
}

func TestGemmQ4NoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, cols = 100, 1024
	w, _ := QuantizeQ4(randWeights(rng, rows, cols, 32), rows, cols, Q4Uniform)
	x := NewQ8Input(9, cols, 32)
	x.Quantize(randActs(rng, 9, cols), 9)
	y := make([]float32, 9*rows)
	p := NewPool(2)
	defer p.Close()
	eachLevel(t, func(t *testing.T) {
		if n := testing.AllocsPerRun(20, func() { GemmQ4(y, x, w) }); n != 0 {
			t.Fatalf("GemmQ4: %v allocations per call", n)
		}
		if n := testing.AllocsPerRun(20, func() { p.GemmQ4(y, x, w) }); n != 0 {
			t.Fatalf("Pool.GemmQ4: %v allocations per call", n)
		}
	})
}
