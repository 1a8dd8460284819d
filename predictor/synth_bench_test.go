package predictor

import "testing"

// BenchmarkSynthFill measures the synthetic generator alone (MB/s of float32
// output) against a floor in the same run: writing the same buffer with a
// constant.
func BenchmarkSynthFill(b *testing.B) {
	src := mustSynth(b, "0.6b", false, 1)
	const name = "talker.model.layers.0.mlp.up_proj.weight" // 3072 × 1024
	dst := make([]float32, 3072*1024)
	b.Run("floor-memset", func(b *testing.B) {
		b.SetBytes(int64(4 * len(dst)))
		for b.Loop() {
			for i := range dst {
				dst[i] = 1
			}
		}
	})
	b.Run("synth", func(b *testing.B) {
		b.SetBytes(int64(4 * len(dst)))
		for b.Loop() {
			if err := src.ReadF32(name, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSynthRead06B reads every tensor of the 0.6B synthetic model once
// through ReadF32 per iteration (the loader's path); the brief's bound is
// 10 s per iteration.
func BenchmarkSynthRead06B(b *testing.B) {
	src := mustSynth(b, "0.6b", true, 1)
	var total int64
	var maxElems int64
	for _, t := range src.Tensors() {
		total += t.Elems()
		maxElems = max(maxElems, t.Elems())
	}
	buf := make([]float32, maxElems)
	b.SetBytes(4 * total)
	for b.Loop() {
		for _, t := range src.Tensors() {
			if err := src.ReadF32(t.Name, buf[:t.Elems()]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
