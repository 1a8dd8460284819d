package codec

import (
	"errors"
	"fmt"
)

// Sentinel errors of the codec; every error the package returns wraps one of
// them (or a *ShapeError), so callers can test them with errors.Is.
var (
	// ErrConfig reports a config.json that is missing a field, holds a value
	// out of range, or describes a geometry the decoder does not support.
	ErrConfig = errors.New("codec: bad config")
	// ErrShape reports a tensor whose shape differs from what the config
	// implies; the detail is a *ShapeError.
	ErrShape = errors.New("codec: shape mismatch")
	// ErrNoTensor reports a tensor the config needs that the file lacks.
	ErrNoTensor = errors.New("codec: no such tensor")
	// ErrNonFinite reports a NaN or infinity in a weight.
	ErrNonFinite = errors.New("codec: non-finite weight")
	// ErrCodes reports frames the decoder cannot take: a code outside
	// [0, codebook_size), or a wrong codebook count.
	ErrCodes = errors.New("codec: bad codes")
	// ErrArgs reports a call with inconsistent arguments (a PCM buffer of
	// the wrong length, a closed stream, mismatched batch slices).
	ErrArgs = errors.New("codec: bad arguments")
)

// ShapeError reports a tensor whose shape differs from the one the config
// implies. It matches ErrShape under errors.Is.
type ShapeError struct {
	Name string // tensor name
	Want []int  // shape the config implies
	Got  []int  // shape found
}

// Error implements error.
func (e *ShapeError) Error() string {
	return fmt.Sprintf("codec: tensor %s: shape %v, config says %v", e.Name, e.Got, e.Want)
}

// Is makes errors.Is(err, ErrShape) true for a *ShapeError.
func (e *ShapeError) Is(target error) bool { return target == ErrShape }

// errorf builds an error wrapping the sentinel base with a precise message.
func errorf(base error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{base}, args...)...)
}
