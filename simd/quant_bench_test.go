package simd

import "testing"

// BenchmarkQuantizeQ8 measures int8 quantization and packing of one
// 1024×3072 matrix (the cold start of a synthetic model does ~150 of them).
func BenchmarkQuantizeQ8(b *testing.B) {
	rows, cols := 1024, 3072
	w := make([]float32, rows*cols)
	s := uint32(1)
	for i := range w {
		s = s*1664525 + 1013904223
		w[i] = float32(int32(s)) / (1 << 31)
	}
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		if _, err := QuantizeQ8(w, rows, cols, 32); err != nil {
			b.Fatal(err)
		}
	}
}
