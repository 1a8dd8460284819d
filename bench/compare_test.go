package bench

import (
	"context"
	"math"
	"testing"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
)

// TestCompareE2ELockstep runs the paired comparison on the tiny model and
// checks its bookkeeping: every decode step of every repetition paired
// once, every stream of both modes generating its frames and the guest's own
// accounting present. It asserts no timing.
func TestCompareE2ELockstep(t *testing.T) {
	const streams, frames, reps = 2, 5, 2
	c, err := CompareE2E(context.Background(), host.Options{Model: "synth:tiny", Threads: 1, Engine: core.Config{Throttle: core.Throttle{Disabled: true}}}, streams, frames, 4, 2, reps)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Native) != reps || len(c.WASI) != reps {
		t.Fatalf("%d native and %d WASI runs, want %d each", len(c.Native), len(c.WASI), reps)
	}
	for i := range reps {
		n, w := c.Native[i], c.WASI[i]
		if n.Mode != "native" || w.Mode != "wasi" {
			t.Fatalf("run %d modes %q, %q", i, n.Mode, w.Mode)
		}
		// One prefill step, then one decode step per further frame.
		if n.Steps != frames || w.Steps != frames {
			t.Fatalf("run %d: %d native and %d WASI steps, want %d", i, n.Steps, w.Steps, frames)
		}
		if w.HostCallsPerFrame <= 0 || n.HostCallsPerFrame != 0 {
			t.Fatalf("run %d: host calls per frame native %v, WASI %v", i, n.HostCallsPerFrame, w.HostCallsPerFrame)
		}
	}
	if want := reps * (frames - 1); len(c.StepRatios) != want {
		t.Fatalf("%d step pairs, want %d", len(c.StepRatios), want)
	}
	for _, r := range c.StepRatios {
		if !(r > 0) || math.IsInf(r, 0) {
			t.Fatalf("step ratio %v", r)
		}
	}
	if c.Guest.GuestSteps == 0 {
		t.Fatalf("no guest accounting: %+v", c.Guest)
	}
}
