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
	// greedy = floor((600 − 100) / 50) = 10; the ramp floor is the second
	// chunk's target (2 + 1 = 3) + 1 = 4.
	if got := a.Target(100); got != 10 {
		t.Errorf("target %d with 600 ms delivered, want 10", got)
	}
	buf = 0 // nothing delivered yet: the ramp floor
	if got := a.Target(100); got != 4 {
		t.Errorf("target %d with nothing delivered, want the ramp floor 4", got)
	}
}
