package simd_test

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/simd"
)

// One decoder step's attention: a query token at position 2 attends to the
// three cached positions 0..2 (two query heads sharing one KV head of 4).
func ExampleAttention() {
	const nHeads, nKV, headDim, nPos = 2, 1, 4, 3
	q := []float32{1, 0, 0, 0, 0, 1, 0, 0}
	k := []float32{ // [pos][nKV][headDim]
		0, 0, 0, 0,
		2, 0, 0, 0,
		0, 2, 0, 0,
	}
	v := []float32{
		1, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 1, 0,
	}
	out := make([]float32, nHeads*headDim)
	scratch := make([]float32, simd.AttentionScratch(nPos, nHeads, nKV, 0, nHeads))
	simd.Attention(out, q, k, v, nPos, nHeads, nKV, headDim, 1/float32(math.Sqrt(headDim)), scratch)
	fmt.Printf("head 0: %.3f\nhead 1: %.3f\n", out[:4], out[4:])
	// Output:
	// head 0: [0.212 0.576 0.212 0.000]
	// head 1: [0.212 0.212 0.576 0.000]
}

func ExampleRMSNorm() {
	x := []float32{3, 4, 0, 0} // mean of squares 6.25, RMS 2.5
	w := []float32{1, 1, 2, 2}
	out := make([]float32, 4)
	simd.RMSNorm(out, x, w, 1, 0)
	fmt.Println(out)
	// Output: [1.2 1.6 0 0]
}

func ExampleRope_Apply() {
	r, err := simd.NewRope(4, 10000, 16)
	if err != nil {
		panic(err)
	}
	x := []float32{1, 0, 0, 0} // one head: pairs (x0, x2) and (x1, x3)
	r.Apply(x, 1, 1)           // position 1 turns pair 0 by 1 radian
	fmt.Printf("%.4f\n", x)
	// Output: [0.5403 0.0000 0.8415 0.0000]
}

func ExampleSoftmax() {
	logits := []float32{0, float32(math.Log(3)), float32(math.Inf(-1))}
	simd.Softmax(logits)
	fmt.Printf("%.4f\n", logits)
	// Output: [0.2500 0.7500 0.0000]
}
