package host

import "github.com/omni-tts/omni/predictor"

// measured is what the engines Open returns expose for measurement only;
// it is not part of Engine.
type measured interface {
	weights() *predictor.Weights
	hostCalls() uint64
}

// WeightsOf returns the weights an engine Open returned loaded on this side
// (their sizes give a benchmark's bytes per frame; the engine owns them),
// nil for any other Engine. For benchmarks.
func WeightsOf(e Engine) *predictor.Weights {
	if m, ok := e.(measured); ok {
		return m.weights()
	}
	return nil
}

// HostCallsOf returns the guest→host calls an engine Open returned made so
// far (0 in Native mode and for any other Engine). For benchmarks and
// progress lines.
func HostCallsOf(e Engine) uint64 {
	if m, ok := e.(measured); ok {
		return m.hostCalls()
	}
	return 0
}
