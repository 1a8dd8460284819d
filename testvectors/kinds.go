package testvectors

import (
	"errors"
	"fmt"
)

// Handler runs one case. It returns nil for a pass, a *SkipError when the
// case asks for something this build does not offer (a precision), and any
// other error — naming the field, the first differing index, got and want —
// for a failure.
type Handler func(c *Case, env *Env) error

// kinds maps every kind this build runs to its handler: the handler of kind
// K is runK in kind_K.go. All seven kinds listed here are wired to the
// engine. A kind of docs/TESTVECTORS.md that is missing from this map is an
// unknown kind, which Run reports as a failure of the case, never a skip; a
// kind may also map to a handler returning notSupported while its engine
// part is being built, which fails the same way.
var kinds = map[string]Handler{
	"rng.exponential": runRNGExponential,
	"sampler":         runSampler,
	"predictor":       runPredictor,
	"talker":          runTalker,
	"frame":           runFrame,
	"stats":           runStats,
	"sched":           runSched,
	"text":            runText,
	"prompt":          runPrompt,
	"codec":           runCodec,
}

// Kinds returns the kinds the runner knows, in the order of
// docs/TESTVECTORS.md.
func Kinds() []string {
	return []string{"rng.exponential", "sampler", "predictor", "talker", "frame", "stats", "sched", "text", "prompt", "codec"}
}

// ErrNotSupported is wrapped by the failure of a case whose kind is known
// but whose engine part this build lacks (no kind does today).
var ErrNotSupported = errors.New("not supported yet")

// notSupported returns the failure for a kind whose engine part is missing.
func notSupported(kind string) error {
	return fmt.Errorf("%w: %s", ErrNotSupported, kind)
}

// SkipError marks a case this build cannot run by design (a precision it does
// not offer). It is reported as skipped, by name, never as a pass.
type SkipError struct {
	Reason string
}

// Error implements error.
func (e *SkipError) Error() string { return "skipped: " + e.Reason }
