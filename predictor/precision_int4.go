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
// uniform one; RATIONALE.md, "Why are 4-bit weights not the default?").
const int4Backend = "int4"

// int4LateNum/int4LateDen is where Int4Late's 4-bit layers start, as a
// fraction of the stack's depth: the last 2/5, rounded up (the code
// predictor's layers 3 and 4 of 5, the talker's 16..27 of 28, the last
// layer of a 2-layer stack). Measured on the outlier model,
// a layer's 4-bit error costs less the later the layer: alone in 4 bits,
// predictor layer 0 gives mean KL 0.199 against fp32, layer 1 0.029,
// layer 2 0.014, layer 3 0.0078, layer 4 0.0060.
const (
	int4LateNum = 3
	int4LateDen = 5
)

// matrix returns the backend precision name of a decoder layer's matrix of
// the given role in layer layer of layers (layer -1: a matrix outside the
// layers, the talker's text projection, stored as the first layer's
// attention).
func (p Precision) matrix(r matrixRole, layer, layers int) string {
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
	case Int4Late:
		// the last ⌈layers·(den−num)/den⌉ layers: at least one
		late := (layers*(int4LateDen-int4LateNum) + int4LateDen - 1) / int4LateDen
		if layer >= 0 && layer >= layers-late {
			return int4Backend
		}
	}
	return "int8"
}

// quantized reports whether p stores the decoder's matrices in blocks
// (int8 or 4-bit): then the norms' gains are split with the next matrix
// and the outlier channels' o_proj/down_proj rows are guarded in fp32.
func (p Precision) quantized() bool { return p != FP32 && p != Int8PerTensor }
