package abi

import (
	"errors"
	"fmt"
)

// Status is the i32 every host function and guest export returns.
type Status int32

// Status codes. StatusOK is zero; every other code maps to one sentinel
// error in Errors.
const (
	StatusOK Status = iota
	StatusBadHandle
	StatusStaleHandle
	StatusForeignHandle
	StatusWrongKind
	StatusReadOnly
	StatusBadPointer
	StatusBadLength
	StatusBadArgument
	StatusBackend
	StatusNoHandles
	StatusSource
	StatusNotWASI
	StatusGuest
	StatusInternal
	statusCount
)

// Sentinel errors, one per failure code. A guest wraps the one its host
// returned with the op's name; errors.Is finds the sentinel.
var (
	// ErrBadHandle: the handle names no live object of this host.
	ErrBadHandle = errors.New("abi: bad handle")
	// ErrStaleHandle: the handle's object was freed (its slot was reused or
	// its instance was discarded).
	ErrStaleHandle = errors.New("abi: stale handle")
	// ErrForeignHandle: the handle belongs to another engine or instance.
	ErrForeignHandle = errors.New("abi: foreign handle")
	// ErrWrongKind: the handle names an object of another kind (a table
	// where a matrix was needed).
	ErrWrongKind = errors.New("abi: handle of the wrong kind")
	// ErrReadOnly: the guest tried to free or overwrite a host-owned weight.
	ErrReadOnly = errors.New("abi: handle is owned by the host")
	// ErrBadPointer: a (pointer, length) pair leaves guest memory or is
	// misaligned.
	ErrBadPointer = errors.New("abi: pointer outside guest memory")
	// ErrBadLength: an element count disagrees with the shapes the handles
	// and counts imply.
	ErrBadLength = errors.New("abi: length does not match shape")
	// ErrBadArgument: a count or size is negative, zero where it cannot be,
	// or out of range (a position past a cache, an unknown precision).
	ErrBadArgument = errors.New("abi: bad argument")
	// ErrBackend: the native backend refused a call the host had checked.
	ErrBackend = errors.New("abi: backend error")
	// ErrNoHandles: the handle table is full.
	ErrNoHandles = errors.New("abi: out of handles")
	// ErrSource: the host could not read weights for the guest.
	ErrSource = errors.New("abi: weight source error")
	// ErrNotWASI: a host function was called outside a WASI guest.
	ErrNotWASI = errors.New("abi: not running as a WASI guest")
	// ErrGuest: a guest export failed (its reply carries the message).
	ErrGuest = errors.New("abi: guest error")
	// ErrInternal: a broken invariant on the host.
	ErrInternal = errors.New("abi: internal error")
)

// errs is the one table both sides use: errs[code] is the sentinel.
var errs = [statusCount]error{
	nil, ErrBadHandle, ErrStaleHandle, ErrForeignHandle, ErrWrongKind, ErrReadOnly,
	ErrBadPointer, ErrBadLength, ErrBadArgument, ErrBackend, ErrNoHandles, ErrSource,
	ErrNotWASI, ErrGuest, ErrInternal,
}

// Err returns the sentinel error for s: nil for StatusOK, and an error
// naming the code for a value outside the table.
func (s Status) Err() error {
	if s >= 0 && s < statusCount {
		return errs[s]
	}
	return fmt.Errorf("abi: unknown status %d", int32(s))
}

// String names the status.
func (s Status) String() string {
	if s == StatusOK {
		return "ok"
	}
	return s.Err().Error()
}

// Code returns the status for err: StatusOK for nil, the code of the first
// sentinel err wraps, and StatusInternal for anything else.
func Code(err error) Status {
	if err == nil {
		return StatusOK
	}
	for i := Status(1); i < statusCount; i++ {
		if errors.Is(err, errs[i]) {
			return i
		}
	}
	return StatusInternal
}

// Error is a failure code with the call it came from; it unwraps to the
// code's sentinel.
type Error struct {
	Op     string // host function or export name
	Status Status
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Op, e.Status.Err()) }

// Unwrap returns the code's sentinel.
func (e *Error) Unwrap() error { return e.Status.Err() }

// Check returns nil for StatusOK and an *Error naming op otherwise.
func Check(op string, s Status) error {
	if s == StatusOK {
		return nil
	}
	return &Error{Op: op, Status: s}
}
