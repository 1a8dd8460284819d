package predictor

import (
	"errors"
	"fmt"

	"github.com/omni-tts/omni/safetensors"
)

// Sentinel errors of the loader. Every error the loader returns wraps one of
// these (or a *ShapeError / *safetensors.TensorError carrying the details),
// so callers can test them with errors.Is.
var (
	// ErrFormat reports a malformed safetensors file: bad header length,
	// malformed JSON, unknown dtype, inconsistent sizes or offsets.
	ErrFormat = safetensors.ErrFormat
	// ErrTruncated reports a file shorter than its header says.
	ErrTruncated = safetensors.ErrTruncated
	// ErrNoTensor reports a tensor that is not in the file or model.
	ErrNoTensor = safetensors.ErrNoTensor
	// ErrDType reports a tensor whose dtype the requested conversion cannot
	// read exactly (e.g. F64 into float32).
	ErrDType = safetensors.ErrDType
	// ErrShape reports a tensor whose shape differs from what the config or
	// the caller expects; the detail is a *ShapeError.
	ErrShape = safetensors.ErrShape
	// ErrConfig reports a config.json or generation_config.json that is
	// missing a field, has a field of the wrong type, or holds a value out
	// of range.
	ErrConfig = errors.New("predictor: bad config")
	// ErrNonFinite reports a NaN or infinity in a weight that must be finite.
	ErrNonFinite = errors.New("predictor: non-finite weight")
	// ErrClosed reports a read from a closed file or source.
	ErrClosed = safetensors.ErrClosed
	// ErrSpec reports a model spec OpenModel does not understand.
	ErrSpec = errors.New("predictor: bad model spec")
)

// ShapeError reports a tensor whose shape differs from the expected one.
// It matches ErrShape under errors.Is.
type ShapeError struct {
	File string // file holding the tensor, when known
	Name string // tensor name
	Want []int  // shape the config (or caller) expects
	Got  []int  // shape found
}

// Error implements error.
func (e *ShapeError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("predictor: %s: tensor %s: shape %v, config says %v", e.File, e.Name, e.Got, e.Want)
	}
	return fmt.Sprintf("predictor: tensor %s: shape %v, config says %v", e.Name, e.Got, e.Want)
}

// Is makes errors.Is(err, ErrShape) true for a *ShapeError.
func (e *ShapeError) Is(target error) bool { return target == ErrShape }

// formatError builds an ErrFormat-wrapping error with a precise message.
func formatError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// fileError prefixes an error with the file it concerns, keeping the cause
// reachable through errors.Is/As.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string { return "predictor: " + e.path + ": " + trimPackage(e.err.Error()) }
func (e *fileError) Unwrap() error { return e.err }

// inFile wraps err with the file path (nil stays nil).
func inFile(path string, err error) error {
	if err == nil {
		return nil
	}
	return &fileError{path: path, err: err}
}

// errorf builds an error wrapping the sentinel base with a precise message.
func errorf(base error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{base}, args...)...)
}

// trimPackage drops a leading "pkg: " from a wrapped message so that it
// does not repeat a package name (safetensors.TrimPackage).
func trimPackage(s string) string { return safetensors.TrimPackage(s) }
