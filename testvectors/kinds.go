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

// registry lists every kind this build runs with its handler (the handler
// of kind K is runK in kind_K.go), in the order of docs/TESTVECTORS.md;
// handler and Kinds read it.
var registry = []struct {
	kind string
	run  Handler
}{
	{"rng.exponential", runRNGExponential},
	{"sampler", runSampler},
	{"predictor", runPredictor},
	{"talker", runTalker},
	{"frame", runFrame},
	{"stats", runStats},
	{"sched", runSched},
	{"text", runText},
	{"prompt", runPrompt},
	{"codec", runCodec},
	{"mel", runMel},
	{"speaker", runSpeaker},
	{"codec_encode", runCodecEncode},
	{"clone_prompt", runClonePrompt},
}

// handler returns the handler of kind, ok false for a kind the registry
// lacks (Run reports it as a failure of the case, never a skip; a handler
// may also return notSupported while its engine part is being built, which
// fails the same way).
func handler(kind string) (Handler, bool) {
	for _, r := range registry {
		if r.kind == kind {
			return r.run, true
		}
	}
	return nil, false
}

// Kinds returns the kinds the runner knows (its registry), in the order of
// docs/TESTVECTORS.md.
func Kinds() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.kind
	}
	return out
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
