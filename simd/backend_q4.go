package simd

import "fmt"

// Backend precision names of 4-bit matrices.
const (
	// PrecInt4 is Q4Matrix with the Q4NonUniform codebook.
	PrecInt4 = "int4"
	// PrecInt4Uniform is Q4Matrix with the evenly spaced Q4Uniform codebook
	// (Q4_0's levels).
	PrecInt4Uniform = "int4-uniform"
)

// quantizeQ4Rotated quantizes W to 4 bits as the int8 path does: each row's
// rotWidth(cols)-wide blocks Hadamard-rotated first (MatMul rotates the
// activations the same way, so the product is unchanged up to rounding),
// which spreads an outlier column over its block before the codes are
// chosen.
func quantizeQ4Rotated(data []float32, rows, cols int, precision string) (*Q4Matrix, error) {
	levels := Q4NonUniform
	if precision == PrecInt4Uniform {
		levels = Q4Uniform
	}
	w := make([]float32, len(data))
	copy(w, data)
	hadamardBlocks(w, rows, cols)
	m, err := QuantizeQ4(w, rows, cols, levels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", precision, err)
	}
	return m, nil
}

// gemmQ4 computes y[m×rows] = x·Wᵀ for quantized x on the pool.
func (b *Backend) gemmQ4(y []float32, x *Q8Input, w *Q4Matrix) {
	if b.pool != nil {
		b.pool.GemmQ4(y, x, w)
		return
	}
	GemmQ4(y, x, w)
}
