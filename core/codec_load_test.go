package core

import (
	"math"
	"testing"
)

// TestCodecLoadWorked checks the codec stage's load figure on worked
// numbers (EWMA weight 0.3):
//
//	a call of 20 ms, 2 frames: 10 ms a frame (the first sample)
//	a call of 30 ms, 3 frames: 10 ms a frame
//	a call of 25 ms, 1 frame:  0.3·25 + 0.7·10 = 14.5 ms a frame
func TestCodecLoadWorked(t *testing.T) {
	var l codecLoad
	if got := l.load(); got.MSPerFrame != 0 {
		t.Fatalf("unmeasured load %+v, want zero", got)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	l.observe(20, 2)
	if got := l.load(); !near(got.MSPerFrame, 10) {
		t.Errorf("after one call %+v, want 10 ms a frame", got)
	}
	l.observe(30, 3)
	if got := l.load(); !near(got.MSPerFrame, 10) {
		t.Errorf("after two calls %+v, want 10 ms a frame", got)
	}
	l.observe(25, 1)
	if got := l.load(); !near(got.MSPerFrame, 14.5) {
		t.Errorf("after three calls %+v, want 14.5 ms a frame", got)
	}
	l.observe(5, 0) // no frames: ignored
	if got := l.load(); !near(got.MSPerFrame, 14.5) {
		t.Errorf("a call without frames changed the figure: %+v", got)
	}
}
