package simd_test

import (
	"fmt"

	"github.com/omni-tts/omni/simd"
)

// Quantize a weight matrix once at load, then per token quantize the
// activations and multiply: y = x·Wᵀ. (Row r's weights are (r+1)·127/256,
// so its bf16 block scale (r+1)/256 codes every weight exactly as 127, and
// y[r] = 64·(r+1)·127/256.)
func ExampleGemmQ8() {
	const rows, cols = 3, 64
	w := make([]float32, rows*cols) // PyTorch [out, in]
	for r := 0; r < rows; r++ {
		for k := 0; k < cols; k++ {
			w[r*cols+k] = float32(r+1) * 127 / 256
		}
	}
	wq, err := simd.QuantizeQ8(w, rows, cols, simd.DefaultBlock)
	if err != nil {
		panic(err)
	}
	x := make([]float32, cols)
	for k := range x {
		x[k] = 1
	}
	xq := simd.NewQ8Input(1, cols, simd.DefaultBlock) // reused for every token
	xq.Quantize(x, 1)
	y := make([]float32, rows)
	simd.GemmQ8(y, xq, wq)
	fmt.Println(y)
	// Output: [31.75 63.5 95.25]
}

// A Pool splits a product over output rows; its result is bit-identical to
// the single-threaded one.
func ExamplePool_GemmQ8() {
	p := simd.NewPool(0) // one worker per physical core
	defer p.Close()
	const rows, cols, m = 40, 96, 2
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(i%7) - 3
	}
	wq, _ := simd.QuantizeQ8(w, rows, cols, simd.DefaultBlock)
	x := make([]float32, m*cols)
	for i := range x {
		x[i] = float32(i%5) - 2
	}
	xq := simd.NewQ8Input(m, cols, simd.DefaultBlock)
	xq.Quantize(x, m)
	y1, y2 := make([]float32, m*rows), make([]float32, m*rows)
	simd.GemmQ8(y1, xq, wq)
	p.GemmQ8(y2, xq, wq)
	same := true
	for i := range y1 {
		same = same && y1[i] == y2[i]
	}
	fmt.Println(same)
	// Output: true
}

// bf16 checkpoints convert exactly to fp32 for the reference path.
func ExampleGemmF32() {
	bf := []uint16{0x3f80, 0x4000, 0x4040, 0x4080} // 1, 2, 3, 4
	w := make([]float32, len(bf))
	simd.BF16ToF32(w, bf)
	wm, _ := simd.NewF32Matrix(w, 2, 2) // [[1 2] [3 4]]
	y := make([]float32, 2)
	simd.GemmF32(y, []float32{1, 1}, 1, wm)
	fmt.Println(y)
	// Output: [3 7]
}
