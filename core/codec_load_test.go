package core

import (
	"math"
	"testing"
)

// TestCodecLoadWorked checks the codec stage's load figures on worked
// numbers (EWMA weight 0.3):
//
//	call ending at 100 ms after 20 ms, 2 frames: 10 ms a frame; no busy share yet
//	call ending at 200 ms after 30 ms, 3 frames: share 30/100 = 0.3; 10 ms a frame
//	call ending at 250 ms after 25 ms, 1 frame:  share 0.3·0.5 + 0.7·0.3 = 0.36;
//	                                              0.3·25 + 0.7·10 = 14.5 ms a frame
func TestCodecLoadWorked(t *testing.T) {
	var l codecLoad
	if got := l.load(); got.Busy != 0 || got.MSPerFrame != 0 {
		t.Fatalf("unmeasured load %+v, want zero", got)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	l.observe(100, 20, 2)
	if got := l.load(); got.Busy != 0 || !near(got.MSPerFrame, 10) {
		t.Errorf("after one call %+v, want busy 0, 10 ms a frame", got)
	}
	l.observe(200, 30, 3)
	if got := l.load(); !near(got.Busy, 0.3) || !near(got.MSPerFrame, 10) {
		t.Errorf("after two calls %+v, want busy 0.3, 10 ms a frame", got)
	}
	l.observe(250, 25, 1)
	if got := l.load(); !near(got.Busy, 0.36) || !near(got.MSPerFrame, 14.5) {
		t.Errorf("after three calls %+v, want busy 0.36, 14.5 ms a frame", got)
	}
	l.observe(260, 5, 0) // no frames: ignored
	if got := l.load(); !near(got.Busy, 0.36) || !near(got.MSPerFrame, 14.5) {
		t.Errorf("a call without frames changed the figures: %+v", got)
	}
}
