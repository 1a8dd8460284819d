package core

import (
	"fmt"

	"github.com/omni-tts/omni/sched"
)

// adaptiveDefaults returns a with MaxFrames defaulted to the fixed ramp's
// steady chunk, or an error for a configuration sched.NewAdaptive would
// refuse or one with negative frame counts (which it would silently raise).
func adaptiveDefaults(a sched.AdaptiveConfig, ramp sched.FixedRamp) (sched.AdaptiveConfig, error) {
	if a.MaxFrames == 0 {
		a.MaxFrames = ramp.ChunkFrames
	}
	if a.MinFrames < 0 || a.MaxFrames < 0 || a.RampDeltaMin < 0 {
		return a, fmt.Errorf("core: adaptive chunks: min_frames %d, max_frames %d, ramp_delta_min %d: want none negative", a.MinFrames, a.MaxFrames, a.RampDeltaMin)
	}
	if err := a.Validate(); err != nil {
		return a, fmt.Errorf("core: adaptive chunks: %w", err)
	}
	return a, nil
}

// startAdaptive gives the chunker its own adaptive controller (at a
// stream's admission). cfg was checked by adaptiveDefaults, so an error
// here is a broken invariant.
func (c *chunker) startAdaptive(cfg sched.AdaptiveConfig) {
	a, err := sched.NewAdaptive(cfg)
	if err != nil {
		panic("omni: BUG: adaptive config passed validation but NewAdaptive refused it: " + err.Error())
	}
	c.adapt = a
}

// nextAdaptive cuts every frame not yet covered once the controller is
// Ready for them at nowMS, and records the chunk with Emit.
func (c *chunker) nextAdaptive(total int, nowMS float64) (Chunk, bool) {
	n := total - c.emitted
	if n < 1 || !c.adapt.Ready(n, nowMS) {
		return Chunk{}, false
	}
	c.adapt.Emit(nowMS, n)
	return c.cut(n, false), true
}

// leftAdaptive is the frames the controller still waits for at nowMS:
// max(0, Target(nowMS) − frames not yet covered).
func (c *chunker) leftAdaptive(total int, nowMS float64) int {
	return max(0, c.adapt.Target(nowMS)-(total-c.emitted))
}
