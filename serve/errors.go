package serve

import (
	"errors"
	"fmt"
	"time"
)

// ErrDraining is returned by a Synthesizer (and by serve itself) once the
// server is draining: new requests are answered 503.
var ErrDraining = errors.New("serve: server is draining")

// ErrUnavailable is wrapped by a Synthesizer's errors once its engine has
// stopped serving (its loop ended): the request is answered 503 (or its
// stream aborted), /healthz and /readyz answer 503, and new requests are
// refused 503 at once, so an orchestrator restarts the replica instead of
// letting requests hang.
var ErrUnavailable = errors.New("serve: the engine is unavailable")

// FieldError is a request field with a bad value: 400, naming the field.
type FieldError struct {
	Field string // the JSON field name, e.g. "voice"
	Msg   string // what is wrong, e.g. `unknown voice "bob"`
}

func (e *FieldError) Error() string { return fmt.Sprintf("serve: field %s: %s", e.Field, e.Msg) }

// CapacityError says the request cannot be admitted now without
// over-committing the KV budget or the waiting queue: 429 with Retry-After.
type CapacityError struct {
	Reason     string        // e.g. "waiting queue full (8)"
	RetryAfter time.Duration // a hint; serve sends at least 1 s
}

func (e *CapacityError) Error() string { return "serve: over capacity: " + e.Reason }

// TooLongError says the input exceeds what the server or model accepts: 413.
type TooLongError struct {
	Field      string // "input" or "instructions"
	Len, Limit int    // in the unit named by Unit
	Unit       string // "characters" or "tokens"
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("serve: field %s: %d %s, limit %d", e.Field, e.Len, e.Unit, e.Limit)
}
