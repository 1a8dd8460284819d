package predictor

// A decoder layer's matrices by role, for the precisions that store
// different matrices at different widths.
type matrixRole int

const (
	roleQKV    matrixRole = iota // the fused q, k, v projection
	roleO                        // o_proj
	roleGateUp                   // the fused gate and up projections
	roleDown                     // down_proj
)

// int4Backend is the backend precision name of 4-bit matrices (simd's
// PrecInt4: the non-uniform codebook, which measured better than the
// uniform one; RATIONALE.md, "4-bit weights").
const int4Backend = "int4"

// matrix returns the backend precision name of a decoder layer's matrix of
// the given role.
func (p Precision) matrix(r matrixRole) string {
	switch p {
	case FP32:
		return "fp32"
	case Int8PerTensor:
		return "int8-pertensor"
	case Int4:
		return int4Backend
	case Int4MLP:
		if r == roleGateUp || r == roleDown {
			return int4Backend
		}
	case Int4GateUp:
		if r == roleGateUp {
			return int4Backend
		}
	}
	return "int8"
}

// quantized reports whether p stores the decoder's matrices in blocks
// (int8 or 4-bit): then the norms' gains are split with the next matrix
// and the outlier channels' o_proj/down_proj rows are guarded in fp32.
func (p Precision) quantized() bool { return p != FP32 && p != Int8PerTensor }
