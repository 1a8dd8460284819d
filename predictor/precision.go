package predictor

import "fmt"

// Precision chooses how a model's matrices are stored and multiplied. It is
// chosen per model at load; the default is Int8.
type Precision int

const (
	// Int8 quantizes the body and the lm heads in int8 blocks (one scale per
	// block of weights along the input; activations quantized per row and
	// block at run time).
	Int8 Precision = iota
	// FP32 keeps every matrix in fp32 (bf16 checkpoints convert exactly): the
	// reference.
	FP32
	// Int8FP32Head quantizes the body in int8 blocks and keeps the heads
	// (codec_head, the predictor's lm heads) in fp32.
	Int8FP32Head
	// Int8PerTensor is a demonstration scheme for tests and benchmarks only:
	// one scale per whole weight matrix and one per activation matrix,
	// simulated in fp32. It shows why omni quantizes in blocks: outlier
	// channels destroy it.
	Int8PerTensor
	// Int4 stores every body matrix in 4-bit codes (blocks of 32, a bf16
	// scale each, the non-uniform codebook; precision_int4.go) and the
	// heads in int8: about 0.53 of int8's bytes per frame.
	Int4
	// Int4MLP stores the MLP matrices (gate, up, down) in 4 bits and the
	// attention matrices and the heads in int8.
	Int4MLP
	// Int4GateUp stores only gate and up in 4 bits, everything else in int8.
	Int4GateUp
	// Int4Late stores every matrix of the last 2/5 of each decoder stack's
	// layers in 4 bits and the rest, and the heads, in int8
	// (precision_int4.go).
	Int4Late
)

// allPrecisions lists every defined precision, in ParsePrecision's order.
var allPrecisions = [...]Precision{FP32, Int8, Int8FP32Head, Int8PerTensor, Int4, Int4MLP, Int4GateUp, Int4Late}

// String returns the name ParsePrecision accepts.
func (p Precision) String() string {
	switch p {
	case Int8:
		return "int8"
	case FP32:
		return "fp32"
	case Int8FP32Head:
		return "int8-fp32head"
	case Int8PerTensor:
		return "int8-pertensor"
	case Int4:
		return "int4"
	case Int4MLP:
		return "int4-mlp"
	case Int4GateUp:
		return "int4-gateup"
	case Int4Late:
		return "int4-late"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// Precisions lists the precisions a user may choose (Int8PerTensor is left
// out: it exists to fail the fidelity bar).
func Precisions() []Precision {
	return []Precision{FP32, Int8, Int8FP32Head, Int4, Int4MLP, Int4GateUp, Int4Late}
}

// ParsePrecision maps "fp32", "int8", "int8-fp32head", "int4", "int4-mlp",
// "int4-gateup", "int4-late" (and the demonstration scheme "int8-pertensor") to a
// Precision; "" is the default, Int8.
func ParsePrecision(s string) (Precision, error) {
	if s == "" {
		return Int8, nil
	}
	for _, p := range allPrecisions {
		if s == p.String() {
			return p, nil
		}
	}
	return Int8, fmt.Errorf("predictor: precision %q unknown (want fp32, int8, int8-fp32head, int4, int4-mlp, int4-gateup or int4-late)", s)
}

// body returns the backend precision name for body matrices outside the
// decoder layers (the talker's text projection): the precision of the
// layers' attention matrices.
func (p Precision) body() string { return p.matrix(roleQKV, -1, 0) }

// head returns the backend precision name for the output heads.
func (p Precision) head() string {
	switch p {
	case FP32, Int8FP32Head:
		return "fp32"
	case Int8PerTensor:
		return "int8-pertensor"
	}
	return "int8"
}

// valid reports whether p is one of the defined precisions.
func (p Precision) valid() bool { return p >= Int8 && p <= Int4Late }
