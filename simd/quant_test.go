package simd

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestQuantizeQ8Errors(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		w                 []float32
		rows, cols, block int
		want              string
	}{
		{nil, 0, 4, 32, "simd: QuantizeQ8: rows 0, cols 4: both must be ≥ 1"},
		{nil, 2, -1, 32, "simd: QuantizeQ8: rows 2, cols -1: both must be ≥ 1"},
		{make([]float32, 7), 2, 4, 32, "simd: QuantizeQ8: len(w) 7, want rows×cols = 2×4 = 8"},
		{make([]float32, 8), 2, 4, 16, "simd: QuantizeQ8: simd: block 16 not 32, 64 or 128"},
		{[]float32{0, 0, 0, 0, 0, 0, nan, 0}, 2, 4, 32, "simd: QuantizeQ8: w[row 1, col 2] = NaN"},
		{[]float32{float32(math.Inf(1)), 0}, 1, 2, 64, "simd: QuantizeQ8: w[row 0, col 0] = +Inf"},
	} {
		_, err := QuantizeQ8(c.w, c.rows, c.cols, c.block)
		if err == nil || err.Error() != c.want {
			t.Errorf("QuantizeQ8(%d×%d, block %d) error %v, want %q", c.rows, c.cols, c.block, err, c.want)
		}
	}
}

func TestQ8Accessors(t *testing.T) {
	w, err := QuantizeQ8(make([]float32, 17*33), 17, 33, 64)
	if err != nil {
		t.Fatal(err)
	}
	if w.Rows() != 17 || w.Cols() != 33 || w.Block() != 64 {
		t.Fatalf("Rows, Cols, Block = %d, %d, %d", w.Rows(), w.Cols(), w.Block())
	}
	// 2 panels × 1 block × (16·64 weights + 16·2 scale bytes)
	if got, want := w.Bytes(), 2*(16*64+32); got != want {
		t.Fatalf("Bytes() = %d, want %d", got, want)
	}
	x := NewQ8Input(4, 33, 64)
	if x.MaxM() != 4 || x.Cols() != 33 || x.Block() != 64 || x.M() != 0 {
		t.Fatalf("Q8Input accessors %d %d %d %d", x.MaxM(), x.Cols(), x.Block(), x.M())
	}
	for _, f := range []func(){
		func() { NewQ8Input(0, 3, 32) },
		func() { NewQ8Input(1, 3, 48) },
		func() { x.Quantize(make([]float32, 5*33), 5) },
		func() { x.Quantize(make([]float32, 32), 1) },
		func() { GemmQ8(make([]float32, 17), x, w) }, // not quantized
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "simd: ") {
					t.Errorf("want a simd: panic, got %v", r)
				}
			}()
			f()
		}()
	}
}

// TestQuantizeExtremes: exact ±127, all-zero blocks, huge and tiny (even
// subnormal) scales all dequantize within half a step.
func TestQuantizeExtremes(t *testing.T) {
	for _, v := range []float32{1, -1, 3e38, -3e38, 1e-38, 1e-44, math.SmallestNonzeroFloat32, 0} {
		w := make([]float32, 2*40)
		for i := range w {
			w[i] = v * (float32(i%7-3) / 3)
		}
		checkQuantBound(t, w, 2, 40, 32)
	}
}

func checkQuantBound(t *testing.T, w []float32, rows, cols, block int) {
	t.Helper()
	m, err := QuantizeQ8(w, rows, cols, block)
	if err != nil {
		t.Fatal(err)
	}
	deq := make([]float32, rows*cols)
	m.Dequantize(deq)
	for i, v := range w {
		q, ws := m.q8At(i/cols, i%cols)
		if q < -127 || q > 127 {
			t.Fatalf("w[%d] = %v: qw %d outside [-127, 127]", i, v, q)
		}
		// half a step, plus the float32 rounding of q·ws itself
		bound := float64(ws)/2 + math.Abs(float64(deq[i]))*0x1p-24 + math.SmallestNonzeroFloat32
		if d := math.Abs(float64(v) - float64(deq[i])); d > bound {
			t.Fatalf("w[row %d, col %d] = %v dequantizes to %v: |Δ| %g > ws/2 = %g", i/cols, i%cols, v, deq[i], d, float64(ws)/2)
		}
	}
}

func FuzzQuantize(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(0))
	f.Add([]byte{0xff, 0xff, 0x7f, 0x7f, 0, 0, 0, 0x80, 1, 0, 0, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		n := len(data) / 4
		if n == 0 {
			return
		}
		w := make([]float32, n)
		for i := range w {
			w[i] = math.Float32frombits(uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24)
			if math.IsNaN(float64(w[i])) || math.IsInf(float64(w[i]), 0) {
				w[i] = 0
			}
		}
		block := []int{32, 64, 128}[int(sel)%3]
		rows := 1 + int(sel/3)%3
		if n < rows {
			rows = 1
		}
		cols := n / rows
		checkQuantBound(t, w[:rows*cols], rows, cols, block)
		// and the activation side: |x − qx·xs| ≤ xs/2
		x := NewQ8Input(rows, cols, block)
		x.Quantize(w, rows)
		row := make([]float32, cols)
		for i := 0; i < rows; i++ {
			x.Row(row, i)
			for k := range row {
				_, xs := x.at(i, k)
				v := float64(w[i*cols+k])
				// float32 reciprocal: up to ~2⁻¹⁷·xs past half a step (quantizeBlock)
				if d := math.Abs(v - float64(row[k])); d > float64(xs)*(0.5+0x1p-16)+math.Abs(float64(row[k]))*0x1p-24+math.SmallestNonzeroFloat32 {
					t.Fatalf("x[row %d, col %d] = %v quantizes to %v: |Δ| %g > xs/2 = %g", i, k, v, row[k], d, float64(xs)/2)
				}
			}
		}
	})
}

func TestSelectRefusal(t *testing.T) {
	defer Use(Active())()
	if err := Select(Level(99)); err == nil {
		t.Fatal("Select(Level(99)) succeeded")
	}
	if _, err := ParseLevel("avx9000"); err == nil {
		t.Fatal(`ParseLevel("avx9000") succeeded`)
	}
	if !Supported(Generic) || Select(Generic) != nil || Active() != Generic {
		t.Fatal("Select(Generic) failed")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Use(Level(99)) did not panic")
			}
		}()
		Use(Level(99))
	}()
}

// TestQuantizeLevels: every level quantizes to the same bytes and scales
// (the AVX-512 level has its own assembly), on rows with zero, subnormal,
// huge and ordinary blocks, and partial last blocks.
func TestQuantizeLevels(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		l := Active()
		if l == Generic {
			t.Skip("generic is the reference")
		}
		rng := rand.New(rand.NewPCG(21, 22))
		for _, block := range []int{32, 64, 128} {
			for _, cols := range []int{1, 31, 32, 33, 100, 256, 1000} {
				for _, m := range []int{1, 2, 5} {
					x := make([]float32, m*cols)
					for i := range x {
						switch blk := (i % cols) / block; (blk + i/cols) % 5 {
						case 0:
							x[i] = float32(rng.NormFloat64())
						case 1:
							x[i] = 0
						case 2:
							x[i] = float32(rng.NormFloat64()) * 1e-40 // subnormal scale
						case 3:
							x[i] = float32(rng.NormFloat64()) * 1e37
						case 4:
							x[i] = float32(rng.NormFloat64()) * 1e-30
						}
					}
					quantize := func() *Q8Input {
						q := NewQ8Input(m, cols, block)
						for i := range q.qx {
							q.qx[i] = 0x55 // every byte must be written
						}
						q.Quantize(x, m)
						return q
					}
					restore := Use(Generic)
					ref := quantize()
					restore()
					q := quantize()
					for i := range q.qx {
						if q.qx[i] != ref.qx[i] {
							t.Fatalf("Quantize(%dx%d/%d) at %s: qx byte %d = %d, generic %d", m, cols, block, l, i, q.qx[i], ref.qx[i])
						}
					}
					for i := range q.sc {
						if q.sc[i] != ref.sc[i] {
							t.Fatalf("Quantize(%dx%d/%d) at %s: scale word %d = %#x, generic %#x", m, cols, block, l, i, q.sc[i], ref.sc[i])
						}
					}
				}
			}
		}
	})
}
