package predictor_test

import (
	"fmt"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// Predict one frame's codebooks 1..15 for a talker hidden state, picking
// greedily.
func ExampleCodePredictor_PredictFrame() {
	src, err := predictor.OpenModel("synth:tiny")
	if err != nil {
		panic(err)
	}
	defer src.Close()
	b := simd.NewBackend(1)
	defer b.Close()
	w, err := predictor.LoadPredictorWeights(src, b, predictor.Int8)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	p, err := predictor.NewCodePredictor(w, predictor.PredictorOptions{MaxBatch: 1})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	hidden := make([]float32, w.TalkerHidden()) // the talker's final-norm hidden
	hidden[0] = 1
	codes := make([]int32, w.Groups())
	err = p.PredictFrame(hidden, []int32{42}, codes, func(g int, logits []float32, out []int32) {
		best := 0
		for i, v := range logits[:w.Vocab()] {
			if v > logits[best] {
				best = i
			}
		}
		out[0] = int32(best)
	})
	fmt.Println(err, len(codes), codes[0])
	// Output: <nil> 16 42
}

// Run a prompt through the talker, then one decode step.
func ExampleTalker_Decode() {
	src, err := predictor.OpenModel("synth:tiny")
	if err != nil {
		panic(err)
	}
	defer src.Close()
	b := simd.NewBackend(1)
	defer b.Close()
	w, err := predictor.LoadTalkerWeights(src, b, predictor.Int8)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	tk, err := predictor.NewTalker(w, predictor.TalkerOptions{MaxBatch: 1, MaxLen: 64})
	if err != nil {
		panic(err)
	}
	seq, err := tk.NewSequence(64)
	if err != nil {
		panic(err)
	}
	defer seq.Close()
	H := w.Hidden()
	prompt := make([]float32, 3*H)
	if err := tk.CodecEmbed(prompt, []int32{2155, 2148, 2149}); err != nil { // nothink, pad, bos
		panic(err)
	}
	hidden, logits := make([]float32, H), make([]float32, w.Vocab())
	if err := tk.Prefill(seq, prompt, hidden, logits); err != nil {
		panic(err)
	}
	next := make([]float32, H)
	if err := tk.FrameEmbed(next, make([]int32, 16)); err != nil {
		panic(err)
	}
	err = tk.Decode([]*predictor.Sequence{seq}, next, hidden, logits)
	fmt.Println(err, seq.Pos())
	// Output: <nil> 4
}
