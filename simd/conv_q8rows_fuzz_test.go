package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzQ8ConvRows is differential: for a random int8 conv (outputs, inputs
// per tap, taps, dilation, rows, bias, residual add) and random values
// drawn from seed, every level this run tests gives the generic
// definition's bits, and nothing outside the listed output rows changes
// (the rows are spread with gaps in y). The seeds run under plain go
// test; `go test -fuzz FuzzQ8ConvRows ./simd` explores further.
func FuzzQ8ConvRows(f *testing.F) {
	for _, c := range []struct {
		seed                  uint64
		out, in, taps, dil, n uint16
		flags                 uint8
	}{
		{1, 16, 4, 1, 1, 1, 0},
		{2, 64, 96, 7, 3, 13, 1},
		{3, 112, 32, 1, 1, 7, 3}, // bias and add
		{4, 48, 22, 3, 9, 6, 1},
		{5, 17, 5, 2, 2, 19, 2}, // a partial panel
	} {
		f.Add(c.seed, c.out, c.in, c.taps, c.dil, c.n, c.flags)
	}
	var levels []Level
	for _, l := range Levels() {
		if why := levelSkip(l); why == "" {
			levels = append(levels, l)
		}
	}
	f.Fuzz(func(t *testing.T, seed uint64, out, in, taps, dil, n uint16, flags uint8) {
		o, ci, k, d, m := 1+int(out)%160, 1+int(in)%200, 1+int(taps)%7, 1+int(dil)%9, 1+int(n)%40
		add := flags&2 != 0
		if add {
			k = 1
		}
		r := rand.New(rand.NewPCG(seed, 7))
		w := make([]float32, o*k*ci)
		for i := range w {
			w[i] = float32(r.NormFloat64() * math.Exp(r.NormFloat64()))
		}
		c, err := newQ8Conv(w, o, k*ci, k)
		if err != nil {
			t.Fatal(err)
		}
		rows := (k-1)*d + m
		x := make([]float32, rows*ci)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 3)
		}
		var bias []float32
		if flags&1 != 0 {
			bias = make([]float32, o)
			for i := range bias {
				bias[i] = float32(r.NormFloat64())
			}
		}
		const gap = 5 // floats between listed output rows
		y0 := make([]float32, m*(o+gap))
		for i := range y0 {
			y0[i] = float32(r.NormFloat64())
		}
		S := q8RowStride(ci)
		run := func(l Level) []float32 {
			xq := make([]byte, rows*S)
			quantizeRowsQ8(l, xq, x, rows, ci, ci)
			y := append([]float32(nil), y0...)
			job := &q8Job{y: y, xq: xq, ts: d * S, bias: bias, add: add}
			job.list(m, 1, o+gap, m, S)
			job.run(l, c)
			return y
		}
		want := run(Generic)
		for u := 0; u < m; u++ {
			for g := 0; g < gap; g++ {
				if i := u*(o+gap) + o + g; math.Float32bits(want[i]) != math.Float32bits(y0[i]) {
					t.Fatalf("generic wrote y[%d], between rows", i)
				}
			}
		}
		for _, l := range levels {
			got := run(l)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: %d outputs × %d inputs × %d taps, dilation %d, %d rows, flags %d: y[%d] = %v, generic %v",
						l, o, ci, k, d, m, flags, i, got[i], want[i])
				}
			}
		}
	})
}
