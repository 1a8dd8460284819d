package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHadamardBlocksIsOrthonormalInvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cols := range []int{1, 3, 32, 96, 1024, 3072} {
		x := make([]float32, 2*cols)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		y := append([]float32(nil), x...)
		hadamardBlocks(y, 2, cols)
		var nx, ny float64
		for i := range x {
			nx += float64(x[i]) * float64(x[i])
			ny += float64(y[i]) * float64(y[i])
		}
		if math.Abs(nx-ny) > 1e-4*nx {
			t.Errorf("cols %d: |Hx|² = %v, |x|² = %v", cols, ny, nx)
		}
		hadamardBlocks(y, 2, cols)
		for i := range x {
			if math.Abs(float64(y[i]-x[i])) > 1e-5 {
				t.Fatalf("cols %d: H(Hx)[%d] = %v, x = %v", cols, i, y[i], x[i])
			}
		}
	}
	// The 2-point case by hand: H = [[1 1] [1 -1]]/√2.
	v := []float32{3, 1}
	hadamardBlocks(v, 1, 2)
	if math.Abs(float64(v[0])-4/math.Sqrt2) > 1e-6 || math.Abs(float64(v[1])-2/math.Sqrt2) > 1e-6 {
		t.Errorf("H[3 1] = %v, want [%v %v]", v, 4/math.Sqrt2, 2/math.Sqrt2)
	}
}

// TestBackendMatMulPrecisions checks each precision's product against a
// float64 dense product: fp32 to rounding, int8 (rotated blocks) to the
// quantization error, and per-tensor int8 worse than block int8 on an input
// with an outlier channel.
func TestBackendMatMulPrecisions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols, m = 48, 256, 3
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64() / 16)
	}
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	x[7] = 60 // an outlier channel in row 0
	want := make([]float64, m*rows)
	var norm float64
	for i := 0; i < m; i++ {
		for o := 0; o < rows; o++ {
			var s float64
			for k := 0; k < cols; k++ {
				s += float64(x[i*cols+k]) * float64(w[o*cols+k])
			}
			want[i*rows+o] = s
			norm = math.Max(norm, math.Abs(s))
		}
	}
	errOf := func(prec string, threads int) float64 {
		b := NewBackend(threads)
		defer b.Close()
		h, err := b.NewMatrix(rows, cols, w, nil, prec)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float32, m*rows)
		if err := b.MatMul(y, x, m, h); err != nil {
			t.Fatal(err)
		}
		var e float64
		for i := range y {
			e = math.Max(e, math.Abs(float64(y[i])-want[i]))
		}
		return e / norm
	}
	if e := errOf("fp32", 1); e > 1e-6 {
		t.Errorf("fp32 relative error %g", e)
	}
	e8 := errOf("int8", 1)
	if e8 > 0.02 {
		t.Errorf("int8 relative error %g > 0.02", e8)
	}
	if e2 := errOf("int8", 2); e2 != e8 {
		t.Errorf("int8 on 2 threads: error %g, on 1 thread %g (want bit-identical results)", e2, e8)
	}
	if et := errOf("int8-pertensor", 1); et <= e8 {
		t.Errorf("per-tensor int8 error %g not above block int8 %g", et, e8)
	}
	// 4 bits: about 16 times int8's step; within 0.2 of the largest output,
	// above int8, and bit-identical on 2 threads.
	for _, prec := range []string{PrecInt4, PrecInt4Uniform} {
		e4 := errOf(prec, 1)
		if e4 > 0.2 || e4 <= e8 {
			t.Errorf("%s relative error %g: want in (int8's %g, 0.2]", prec, e4, e8)
		}
		if e2 := errOf(prec, 2); e2 != e4 {
			t.Errorf("%s on 2 threads: error %g, on 1 thread %g (want bit-identical results)", prec, e2, e4)
		}
	}
}

func TestBackendThreadsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols, m = 100, 64, 5
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	run := func(threads int, prec string) []float32 {
		b := NewBackend(threads)
		defer b.Close()
		h, err := b.NewMatrix(rows, cols, w, nil, prec)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float32, m*rows)
		if err := b.MatMul(y, x, m, h); err != nil {
			t.Fatal(err)
		}
		return y
	}
	for _, prec := range []string{"fp32", "int8", PrecInt4} {
		a, c := run(1, prec), run(2, prec)
		for i := range a {
			if a[i] != c[i] {
				t.Fatalf("%s: y[%d] = %v on 1 thread, %v on 2", prec, i, a[i], c[i])
			}
		}
	}
}

// TestBackendAttentionThreadsAgree checks that Attention's rows split over
// the pool give the single-threaded result bit for bit: 6 rows over 3
// caches, two of them a prefill of positions 0..2 of one cache.
func TestBackendAttentionThreadsAgree(t *testing.T) {
	const heads, kvh, hd, maxPos = 4, 2, 16, 8
	r := rand.New(rand.NewPCG(7, 8))
	row := (heads + 2*kvh) * hd
	caches := []int{0, 0, 0, 1, 2, 2}
	pos := []int32{0, 1, 2, 5, 3, 4}
	m := len(pos)
	qkv := make([]float32, m*row)
	for i := range qkv {
		qkv[i] = float32(r.NormFloat64())
	}
	gain := make([]float32, hd)
	for i := range gain {
		gain[i] = 0.5 + float32(r.Float64())
	}
	run := func(threads int) []float32 {
		b := NewBackend(threads)
		defer b.Close()
		qn, err := b.NewVector(gain)
		if err != nil {
			t.Fatal(err)
		}
		kn, err := b.NewVector(gain)
		if err != nil {
			t.Fatal(err)
		}
		rope, err := b.NewRope(hd, maxPos, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		var hs [3]int32
		for i := range hs {
			if hs[i], err = b.NewKVCache(1, kvh, hd, maxPos); err != nil {
				t.Fatal(err)
			}
		}
		// Fill the earlier positions of caches 1 and 2 one row at a time.
		fr := rand.New(rand.NewPCG(9, 10))
		fill := make([]float32, row)
		for c, upto := range []int32{0, 5, 3} {
			for p := int32(0); p < upto; p++ {
				for i := range fill {
					fill[i] = float32(fr.NormFloat64())
				}
				if err := b.Attention(make([]float32, heads*hd), fill, 1, []int32{hs[c]}, []int32{p}, 0, qn, kn, rope, heads, 1e-6); err != nil {
					t.Fatal(err)
				}
			}
		}
		ch := make([]int32, m)
		for i, c := range caches {
			ch[i] = hs[c]
		}
		out := make([]float32, m*heads*hd)
		if err := b.Attention(out, append([]float32(nil), qkv...), m, ch, pos, 0, qn, kn, rope, heads, 1e-6); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, c := run(1), run(3)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(c[i]) {
			t.Fatalf("out[%d] = %v on 1 thread, %v on 3", i, a[i], c[i])
		}
	}
}
