package core

import (
	"errors"
	"fmt"
)

// Sentinel errors of the engine, usable with errors.Is.
var (
	// ErrInvalidRequest is wrapped by every refusal of a malformed request.
	ErrInvalidRequest = errors.New("core: invalid request")
	// ErrNoFit is wrapped by the refusal of a request whose KV cache can
	// never fit the engine's budget; the detail is an *AdmissionError.
	ErrNoFit = errors.New("core: request cannot fit")
	// ErrClosed reports a Submit or Step on a closed engine.
	ErrClosed = errors.New("core: engine closed")
	// ErrQueueFull reports a Submit while the waiting queue is at its limit.
	ErrQueueFull = errors.New("core: waiting queue full")
)

// invalid returns an error wrapping ErrInvalidRequest with a precise message.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidRequest}, args...)...)
}

// AdmissionError explains why a request's KV cache cannot fit: the bytes it
// needs for its whole length against the budget. It matches ErrNoFit.
type AdmissionError struct {
	Positions   int   // KV positions the request needs (prompt + frame cap)
	NeedBytes   int64 // KV bytes for those positions
	BudgetBytes int64 // the engine's whole KV budget
}

// Error implements error.
func (e *AdmissionError) Error() string {
	return fmt.Sprintf("core: request needs %d KV positions = %d bytes in 16-token blocks, more than the KV budget of %d bytes (lower max_frames or raise the budget)",
		e.Positions, e.NeedBytes, e.BudgetBytes)
}

// Is makes errors.Is(err, ErrNoFit) true.
func (e *AdmissionError) Is(target error) bool { return target == ErrNoFit }
