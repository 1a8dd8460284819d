package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzGemmQ4 is differential like FuzzGemmQ8: for a random shape and
// values drawn from seed, every level this run tests must give the generic
// Go kernel's bits, with nothing written outside y; the generic kernel in
// turn must match refQ4, the plain definition.
func FuzzGemmQ4(f *testing.F) {
	for _, c := range []struct {
		seed          uint64
		m, rows, cols uint16
		nonUniform    bool
	}{
		{1, 1, 1, 1, false},
		{2, 1, 16, 32, true},
		{3, 2, 17, 33, false},
		{4, 8, 100, 1024, true},
		{5, 9, 33, 100, false},
		{6, 3, 15, 300, true},
		{7, 17, 48, 257, false},
		{8, 64, 16, 64, true},
	} {
		f.Add(c.seed, c.m, c.rows, c.cols, c.nonUniform)
	}
	var levels []Level
	for _, l := range Levels() {
		if why := levelSkip(l); why != "" {
			f.Log("skipped " + why)
			continue
		}
		levels = append(levels, l)
	}
	f.Fuzz(func(t *testing.T, seed uint64, m, rows, cols uint16, nonUniform bool) {
		m = 1 + m%64
		rows = 1 + rows%130
		cols = 1 + cols%1100
		rng := rand.New(rand.NewPCG(seed, uint64(m)<<32|uint64(rows)<<16|uint64(cols)))
		cb := Q4Uniform
		if nonUniform {
			cb = Q4NonUniform
		}
		w, err := QuantizeQ4(randWeights(rng, int(rows), int(cols), Q4Block), int(rows), int(cols), cb)
		if err != nil {
			t.Fatalf("QuantizeQ4(%dx%d): %v", rows, cols, err)
		}
		x := NewQ8Input(int(m), int(cols), Q4Block)
		x.Quantize(randActs(rng, int(m), int(cols)), int(m))
		n := int(m) * int(rows)
		want := make([]float32, n)
		restore := Use(Generic)
		GemmQ4(want, x, w)
		restore()
		for i := range want {
			if r := refQ4(x, w, i/int(rows), i%int(rows)); math.Float32bits(r) != math.Float32bits(want[i]) {
				t.Fatalf("GemmQ4(%dx%dx%d) generic row %d col %d = %v, definition %v", m, cols, rows, i/int(rows), i%int(rows), want[i], r)
			}
		}
		for _, l := range levels {
			if l == Generic {
				continue
			}
			restore := Use(l)
			y, full := guarded(n)
			GemmQ4(y, x, w)
			restore()
			checkGuards(t, "GemmQ4 at "+l.String(), full)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("GemmQ4(%dx%dx%d) at %s row %d col %d = %v, generic %v",
						m, cols, rows, l, i/int(rows), i%int(rows), y[i], want[i])
				}
			}
		}
	})
}
