package simd

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestParallelPreparationIsSerial: quantizing, packing and rotating
// weights on all cores gives the bytes one core gives.
func TestParallelPreparationIsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 301, 256
	w := randF32(r, rows*cols)
	prepare := func(procs int) (*Q8Matrix, *F32Matrix, []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		q, err := QuantizeQ8(w, rows, cols, DefaultBlock)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewF32Matrix(w, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		h := slices.Clone(w)
		hadamardWeights(h, rows, cols)
		return q, f, h
	}
	q1, f1, h1 := prepare(1)
	q4, f4, h4 := prepare(4)
	if !bytes.Equal(q1.data, q4.data) {
		t.Error("QuantizeQ8 on 4 threads differs from 1")
	}
	if !slices.Equal(f1.data, f4.data) {
		t.Error("NewF32Matrix on 4 threads differs from 1")
	}
	if !slices.Equal(h1, h4) {
		t.Error("hadamardWeights on 4 threads differs from 1")
	}
	want := slices.Clone(w)
	hadamardBlocks(want, rows, cols)
	if !slices.Equal(h4, want) {
		t.Error("hadamardWeights differs from hadamardBlocks")
	}
}
