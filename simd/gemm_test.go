package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

const guard = 16 // floats of guard band before and after every output

var guardBits = math.Float32frombits(0x7fc0dead) // a NaN no kernel produces

// guarded returns a slice of n floats with guard bands on both sides, all
// set to guardBits, and the full backing slice for checkGuards.
func guarded(n int) (y, full []float32) {
	full = make([]float32, n+2*guard)
	for i := range full {
		full[i] = guardBits
	}
	return full[guard : guard+n], full
}

func checkGuards(t *testing.T, name string, full []float32) {
	t.Helper()
	n := len(full) - 2*guard
	for i := 0; i < guard; i++ {
		if math.Float32bits(full[i]) != 0x7fc0dead {
			t.Fatalf("%s: guard before output [%d] overwritten: %v", name, i-guard, full[i])
		}
		if math.Float32bits(full[guard+n+i]) != 0x7fc0dead {
			t.Fatalf("%s: guard after output [+%d] overwritten: %v", name, i, full[guard+n+i])
		}
	}
}

// randWeights returns rows×cols weights with varied magnitudes: most
// blocks normal, some all-zero, some with huge or tiny scales, some holding
// values that quantize to exactly ±127.
func randWeights(rng *rand.Rand, rows, cols, block int) []float32 {
	w := make([]float32, rows*cols)
	for r := 0; r < rows; r++ {
		for b := 0; b*block < cols; b++ {
			kind := rng.IntN(10)
			scale := float32(1)
			switch kind {
			case 0:
				continue // all-zero block
			case 1:
				scale = 1e20
			case 2:
				scale = 1e-20
			}
			for k := b * block; k < min(cols, (b+1)*block); k++ {
				v := float32(rng.NormFloat64()) * scale
				if kind == 3 {
					v = scale * float32(1-2*rng.IntN(2)) // ±max: qw = ±127
				}
				w[r*cols+k] = v
			}
		}
	}
	return w
}

func randActs(rng *rand.Rand, m, cols int) []float32 {
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		switch rng.IntN(50) {
		case 0:
			x[i] *= 30 // outlier channel
		case 1:
			x[i] = 0
		}
	}
	return x
}

// refQ8 is the exact model of the quantized product (integer block dots,
// then the float32 steps in the documented order).
func refQ8(x *Q8Input, w *Q8Matrix, i, r int) float32 {
	var acc float32
	for b := 0; b < w.nb; b++ {
		var isum int32
		var xs, ws float32
		for k := b * w.block; k < min(w.cols, (b+1)*w.block); k++ {
			qw, s := w.q8At(r, k)
			qx, t := x.at(i, k)
			isum += qw * qx
			ws, xs = s, t
		}
		acc = float32(acc + float32(float32(float32(isum)*xs)*ws))
	}
	return acc
}

type q8Case struct {
	m, rows, cols, block int
}

func q8Cases() []q8Case {
	var cs []q8Case
	for _, cols := range []int{1, 31, 33, 100, 1024, 3072} {
		for _, rows := range []int{1, 15, 16, 17, 48, 80, 100, 112, 200} {
			for _, m := range []int{1, 2, 3, 4, 5, 6, 8, 9, 17} {
				cs = append(cs, q8Case{m, rows, cols, 32})
			}
		}
	}
	for m := 1; m <= 64; m++ {
		cs = append(cs, q8Case{m, 33, 100, 32})
	}
	for _, block := range []int{64, 128} {
		for _, cols := range []int{1, 100, 1024} {
			for _, m := range []int{1, 3, 8, 13} {
				cs = append(cs, q8Case{m, 17, cols, block})
			}
		}
	}
	return cs
}

func TestGemmQ8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ps []q8Prepared
	for _, c := range q8Cases() {
		w, err := QuantizeQ8(randWeights(rng, c.rows, c.cols, c.block), c.rows, c.cols, c.block)
		if err != nil {
			t.Fatal(err)
		}
		x := NewQ8Input(c.m+rng.IntN(3), c.cols, c.block)
		x.Quantize(randActs(rng, c.m, c.cols), c.m)
		want := make([]float32, c.m*c.rows)
		for i := 0; i < c.m; i++ {
			for r := 0; r < c.rows; r++ {
				want[i*c.rows+r] = refQ8(x, w, i, r)
			}
		}
		ps = append(ps, q8Prepared{c, w, x, want})
	}
	eachLevel(t, func(t *testing.T) {
		eachQuadPrefetch(func(pf bool) { gemmQ8Cases(t, ps, pf) })
	})
}

// eachQuadPrefetch runs f under each quad-kernel variant the active level
// has: with and without software prefetch at AVX-512 VNNI (the only level
// with quad kernels; the two must give the same bits), this CPU's choice
// elsewhere. The choice is restored after each run.
func eachQuadPrefetch(f func(pf bool)) {
	if active != AVX512VNNI {
		f(quadPrefetch)
		return
	}
	for _, pf := range []bool{true, false} {
		restore := UseQuadPrefetch(pf)
		f(pf)
		restore()
	}
}

// gemmQ8Cases checks GemmQ8 and GemmQ8Rows on the prepared cases against
// their brute-force results.
func gemmQ8Cases(t *testing.T, ps []q8Prepared, pf bool) {
	t.Helper()
	for _, p := range ps {
		c := p.c
		name := fmt.Sprintf("GemmQ8(%dx%dx%d/%d, quad prefetch %t)", c.m, c.cols, c.rows, c.block, pf)
		checkGemmCase(t, name, c, p.want, p.w.data, p.x,
			func(y []float32) { GemmQ8(y, p.x, p.w) },
			func(y []float32, r0, r1 int) { GemmQ8Rows(y, p.x, p.w, r0, r1) })
	}
}

// checkGemmCase runs one case of an int8-activation GEMM (gemm over all
// rows, gemmRows over [r0, r1)) and checks its bits against want, the
// guards around y, that the packed weights wdata and the input x are left
// as they were, and that a split into row ranges writes only its rows and
// gives the same bits.
func checkGemmCase(t *testing.T, name string, c q8Case, want []float32, wdata []byte, x *Q8Input,
	gemm func(y []float32), gemmRows func(y []float32, r0, r1 int)) {
	t.Helper()
	wsum, xsum := sumBytes(wdata), sumInput(x)
	y, full := guarded(c.m * c.rows)
	gemm(y)
	checkGuards(t, name, full)
	for i := range y {
		if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s row %d col %d = %v, want %v", name, i/c.rows, i%c.rows, y[i], want[i])
		}
	}
	if sumBytes(wdata) != wsum || sumInput(x) != xsum {
		t.Fatalf("%s modified its inputs", name)
	}
	if c.rows <= PanelRows {
		return
	}
	// Split into row ranges: the same bits, nothing outside touched.
	y2, full2 := guarded(c.m * c.rows)
	gemmRows(y2, PanelRows, c.rows)
	for i := range y2 {
		if i%c.rows < PanelRows && math.Float32bits(y2[i]) != 0x7fc0dead {
			t.Fatalf("%s: rows [16, %d) wrote row %d col %d", name, c.rows, i/c.rows, i%c.rows)
		}
	}
	gemmRows(y2, 0, PanelRows)
	checkGuards(t, name+" split", full2)
	for i := range y2 {
		if math.Float32bits(y2[i]) != math.Float32bits(y[i]) {
			t.Fatalf("%s split row %d col %d = %v, want %v", name, i/c.rows, i%c.rows, y2[i], y[i])
		}
	}
}

// q8Prepared is a GemmQ8 case with its quantized operands and the
// brute-force result.
type q8Prepared struct {
	c    q8Case
	w    *Q8Matrix
	x    *Q8Input
	want []float32
}

func sumBytes(b []byte) uint64 {
	var s uint64
	for i, v := range b {
		s += uint64(v) * uint64(i%251+1)
	}
	return s
}

func sumInput(q *Q8Input) uint64 {
	var s uint64
	for i, v := range q.qx {
		s += uint64(uint8(v)) * uint64(i%251+1)
	}
	for i, v := range q.sc {
		s += uint64(v) * uint64(i%251+1)
	}
	return s
}

// TestGemmQ8Fidelity checks the quantized product against the float product
// of the original values, within the bound quantization allows: per term
// |x|·ws/2 + |w|·xs/2 + ws·xs/4.
func TestGemmQ8Fidelity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []q8Case{{1, 17, 100, 32}, {4, 33, 1024, 32}, {3, 20, 333, 64}, {2, 16, 300, 128}} {
		wf := make([]float32, c.rows*c.cols)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
		}
		xf := randActs(rng, c.m, c.cols)
		w, err := QuantizeQ8(wf, c.rows, c.cols, c.block)
		if err != nil {
			t.Fatal(err)
		}
		x := NewQ8Input(c.m, c.cols, c.block)
		x.Quantize(xf, c.m)
		y := make([]float32, c.m*c.rows)
		GemmQ8(y, x, w)
		for i := 0; i < c.m; i++ {
			for r := 0; r < c.rows; r++ {
				var exact, bound float64
				for k := 0; k < c.cols; k++ {
					xv, wv := float64(xf[i*c.cols+k]), float64(wf[r*c.cols+k])
					exact += xv * wv
					_, ws := w.q8At(r, k)
					_, xs := x.at(i, k)
					bound += math.Abs(xv)*float64(ws)/2 + math.Abs(wv)*float64(xs)/2 + float64(ws)*float64(xs)/4
				}
				if d := math.Abs(float64(y[i*c.rows+r]) - exact); d > bound*1.001+1e-4 {
					t.Fatalf("GemmQ8(%dx%dx%d) row %d col %d = %v, float product %v: |Δ| %g > bound %g",
						c.m, c.cols, c.rows, i, r, y[i*c.rows+r], exact, d, bound)
				}
			}
		}
	}
}

// TestQ8InputReuse: one buffer quantized at different m gives the same
// products as fresh buffers (the layout depends on m).
func TestQ8InputReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const rows, cols = 40, 200
	w, _ := QuantizeQ8(randWeights(rng, rows, cols, 32), rows, cols, 32)
	shared := NewQ8Input(9, cols, 32)
	for _, m := range []int{9, 2, 5, 1, 8} {
		xf := randActs(rng, m, cols)
		shared.Quantize(xf, m)
		fresh := NewQ8Input(m, cols, 32)
		fresh.Quantize(xf, m)
		y1, y2 := make([]float32, m*rows), make([]float32, m*rows)
		GemmQ8(y1, shared, w)
		GemmQ8(y2, fresh, w)
		for i := range y1 {
			if math.Float32bits(y1[i]) != math.Float32bits(y2[i]) {
				t.Fatalf("GemmQ8(%dx%dx%d) with a reused input: row %d col %d = %v, want %v", m, cols, rows, i/rows, i%rows, y1[i], y2[i])
			}
		}
	}
}
