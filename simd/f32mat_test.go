package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestGemmF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	type prepared struct {
		m, rows, cols int
		wf, xf        []float32
		w             *F32Matrix
	}
	var ps []prepared
	add := func(m, rows, cols int) {
		wf := make([]float32, rows*cols)
		for i := range wf {
			wf[i] = float32(rng.NormFloat64())
			if rng.IntN(40) == 0 {
				wf[i] *= 1e4
			}
		}
		w, err := NewF32Matrix(wf, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, prepared{m, rows, cols, wf, randActs(rng, m, cols), w})
	}
	for _, cols := range []int{1, 3, 4, 5, 31, 33, 100, 1024} {
		for _, rows := range []int{1, 15, 16, 17, 100} {
			for _, m := range []int{1, 2, 3, 4, 5, 8, 9, 13} {
				add(m, rows, cols)
			}
		}
	}
	for m := 1; m <= 64; m++ {
		add(m, 33, 37)
	}
	add(3, 20, 3072)
	eachLevel(t, func(t *testing.T) {
		for _, p := range ps {
			name := fmt.Sprintf("GemmF32(%dx%dx%d)", p.m, p.cols, p.rows)
			xc := append([]float32(nil), p.xf...)
			y, full := guarded(p.m * p.rows)
			GemmF32(y, p.xf, p.m, p.w)
			checkGuards(t, name, full)
			for i := 0; i < p.m; i++ {
				for r := 0; r < p.rows; r++ {
					var exact, mag float64
					for k := 0; k < p.cols; k++ {
						v := float64(p.xf[i*p.cols+k]) * float64(p.wf[r*p.cols+k])
						exact += v
						mag += math.Abs(v)
					}
					tol := float64(p.cols+2) * 0x1p-23 * mag
					if got := float64(y[i*p.rows+r]); math.Abs(got-exact) > tol {
						t.Fatalf("%s row %d col %d = %v, want %v (tolerance %g)", name, i, r, got, exact, tol)
					}
				}
			}
			for i := range xc {
				if math.Float32bits(xc[i]) != math.Float32bits(p.xf[i]) {
					t.Fatalf("%s modified x[%d]", name, i)
				}
			}
			if p.rows > PanelRows {
				y2, full2 := guarded(p.m * p.rows)
				GemmF32Rows(y2, p.xf, p.m, p.w, PanelRows, p.rows)
				GemmF32Rows(y2, p.xf, p.m, p.w, 0, PanelRows)
				checkGuards(t, name+" split", full2)
				for i := range y2 {
					if math.Float32bits(y2[i]) != math.Float32bits(y[i]) {
						t.Fatalf("%s split row %d col %d = %v, want %v", name, i/p.rows, i%p.rows, y2[i], y[i])
					}
				}
			}
		}
	})
}

func TestNewF32MatrixErrors(t *testing.T) {
	for _, c := range []struct {
		w          []float32
		rows, cols int
		want       string
	}{
		{nil, 0, 3, "simd: NewF32Matrix: rows 0, cols 3: both must be ≥ 1"},
		{make([]float32, 5), 2, 3, "simd: NewF32Matrix: len(w) 5, want rows×cols = 2×3 = 6"},
		{[]float32{0, 1, float32(math.Inf(-1)), 3}, 2, 2, "simd: NewF32Matrix: w[row 1, col 0] = -Inf"},
	} {
		if _, err := NewF32Matrix(c.w, c.rows, c.cols); err == nil || err.Error() != c.want {
			t.Errorf("NewF32Matrix(%d×%d) error %v, want %q", c.rows, c.cols, err, c.want)
		}
	}
}
