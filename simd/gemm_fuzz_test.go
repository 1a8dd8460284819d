package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzGemmQ8 is differential: for a random shape (m input rows, rows output
// rows, cols, block) and random values drawn from seed, every level this run
// tests must give the generic Go kernel's bits, with nothing written outside
// y. The seeds below run under plain go test; `go test -fuzz FuzzGemmQ8
// ./simd` explores further.
func FuzzGemmQ8(f *testing.F) {
	for _, c := range []struct {
		seed             uint64
		m, rows, cols, b uint16
	}{
		{1, 1, 1, 1, 0},      // smallest
		{2, 1, 16, 32, 0},    // one panel, one block
		{3, 2, 17, 33, 0},    // partial panel and block
		{4, 8, 100, 1024, 0}, // a full 8-row group
		{5, 9, 33, 100, 1},   // group of 8 + 1
		{6, 3, 15, 300, 2},   // block 128, partial
		{7, 17, 48, 257, 1},  // 8+8+1 rows
		{8, 64, 16, 64, 0},   // many rows
	} {
		f.Add(c.seed, c.m, c.rows, c.cols, c.b)
	}
	var levels []Level
	for _, l := range Levels() {
		if why := levelSkip(l); why != "" {
			f.Log("skipped " + why)
			continue
		}
		levels = append(levels, l)
	}
	f.Fuzz(func(t *testing.T, seed uint64, m, rows, cols, blockSel uint16) {
		// Bound the shape so one input stays well under a millisecond.
		m = 1 + m%64
		rows = 1 + rows%130
		cols = 1 + cols%1100
		block := 32 << (blockSel % 3)
		rng := rand.New(rand.NewPCG(seed, uint64(m)<<32|uint64(rows)<<16|uint64(cols)))
		w, err := QuantizeQ8(randWeights(rng, int(rows), int(cols), block), int(rows), int(cols), block)
		if err != nil {
			t.Fatalf("QuantizeQ8(%dx%d/%d): %v", rows, cols, block, err)
		}
		x := NewQ8Input(int(m), int(cols), block)
		x.Quantize(randActs(rng, int(m), int(cols)), int(m))
		n := int(m) * int(rows)

		want := make([]float32, n)
		restore := Use(Generic)
		GemmQ8(want, x, w)
		restore()
		for _, l := range levels {
			if l == Generic {
				continue
			}
			restore := Use(l)
			y, full := guarded(n)
			GemmQ8(y, x, w)
			restore()
			checkGuards(t, "GemmQ8 at "+l.String(), full)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("GemmQ8(%dx%dx%d/%d) at %s row %d col %d = %v, generic %v",
						m, cols, rows, block, l, i/int(rows), i%int(rows), y[i], want[i])
				}
			}
		}
	})
}
