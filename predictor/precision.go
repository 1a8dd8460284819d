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
)

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
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// Precisions lists the precisions a user may choose (Int8PerTensor is left
// out: it exists to fail the fidelity bar).
func Precisions() []Precision { return []Precision{FP32, Int8, Int8FP32Head} }

// ParsePrecision maps "fp32", "int8", "int8-fp32head" (and the demonstration
// scheme "int8-pertensor") to a Precision; "" is the default, Int8.
func ParsePrecision(s string) (Precision, error) {
	if s == "" {
		return Int8, nil
	}
	for _, p := range []Precision{FP32, Int8, Int8FP32Head, Int8PerTensor} {
		if s == p.String() {
			return p, nil
		}
	}
	return Int8, fmt.Errorf("predictor: precision %q unknown (want fp32, int8 or int8-fp32head)", s)
}

// body returns the backend precision name for body matrices.
func (p Precision) body() string {
	switch p {
	case FP32:
		return "fp32"
	case Int8PerTensor:
		return "int8-pertensor"
	}
	return "int8"
}

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
func (p Precision) valid() bool { return p >= Int8 && p <= Int8PerTensor }
