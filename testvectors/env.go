package testvectors

import "github.com/omni-tts/omni/predictor"

// Env is what handlers need from the engine around them. The runner passes
// the same *Env to every case; a zero Env runs the portable kinds (rng,
// sampler, stats, sched) natively. Owners of kinds that need more (a model
// loader, a backend factory) add fields here, one documented line each.
type Env struct {
	// Precisions lists the precision names this build offers for model
	// kinds (predictor, talker, frame); a case asking for another is
	// skipped, and the skip is reported by name. Nil means {"fp32"}.
	Precisions []string

	// Wasm reports that the cases run inside the WASI control core rather
	// than natively (omni conformance --wasm); handlers that cannot run
	// there return an error, never a pass.
	Wasm bool

	// Threads is the worker count for kernels a handler runs (0 = default).
	Threads int

	// NewBackend returns a fresh backend for the predictor and talker kinds
	// (the native simd.Backend, or the WASI guest's) and the func that
	// releases it; nil makes those kinds fail with "no backend".
	NewBackend func() (b predictor.Backend, release func())

	texts textCache // tokenizers loaded by the text and prompt kinds, by directory
}

// offers reports whether the build offers precision p.
func (e *Env) offers(p string) bool {
	if e == nil || e.Precisions == nil {
		return p == "fp32"
	}
	for _, q := range e.Precisions {
		if q == p {
			return true
		}
	}
	return false
}

// CheckPrecision returns a *SkipError when the case's precision is not
// offered by this build, nil when it is.
func (e *Env) CheckPrecision(c *Case, precision string) error {
	if e.offers(precision) {
		return nil
	}
	return &SkipError{Reason: "precision " + precision + " not offered by this build"}
}
