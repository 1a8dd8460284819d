package sched

import "testing"

// TestAdaptiveSetBuffer: with a buffer source the target follows it (the
// worked greedy size floor((buffer − margin) / ewma)) instead of the audio
// the chunks carried.
func TestAdaptiveSetBuffer(t *testing.T) {
	cfg := DefaultAdaptiveConfig()
	cfg.MinFrames, cfg.MaxFrames, cfg.SafetyMarginMS, cfg.RampDeltaMin, cfg.RampDivisor = 2, 25, 100, 1, 1000
	a, err := NewAdaptive(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.Emit(0, 2)   // first chunk at 0 ms
	a.Emit(100, 2) // ewma = 50 ms per frame
	if got := a.BufferMS(100); got != 4*80-100 {
		t.Fatalf("buffer from the chunks %g ms, want 220", got)
	}
	buf := 600.0
	a.SetBuffer(func(float64) float64 { return buf })
	// greedy = floor((600 − 100) / 50) = 10.
	if got := a.Target(100); got != 10 {
		t.Errorf("target %d with 600 ms delivered, want 10", got)
	}
	// Nothing delivered yet, 50 ms per frame (faster than the 80 ms a frame
	// plays): no growth past the last target, 2 (the second chunk's: no
	// measurement then), so the player is not made to wait for a larger one.
	buf = 0
	if got := a.Target(100); got != 2 {
		t.Errorf("target %d with nothing delivered, want the last target 2", got)
	}
	// Slower than real time (a chunk of 2 more frames 400 ms later: sample
	// 200, ewma 0.3·200 + 0.7·50 = 95 ≥ 80): the ramp floor 2 + max(1,
	// int(95/1000)) = 3, whatever the buffer.
	a.Emit(500, 2)
	if got := a.Target(500); got != 3 {
		t.Errorf("target %d slower than real time (ewma %v), want the ramp floor 3", got, a.EWMA())
	}
}
