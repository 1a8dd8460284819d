package core

import (
	"testing"
	"time"
)

func arrivals(pairs ...float64) []Arrival {
	var out []Arrival
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Arrival{At: time.Duration(pairs[i] * float64(time.Millisecond)), AudioMS: pairs[i+1]})
	}
	return out
}

// TestPlaybackWorkedNumbers uses the stream-latency metrics' worked numbers
// (docs/SCHEDULING.md §2, the original test_stream_latency_metrics): the default
// 1-then-25 schedule arriving at 30/190/348 ms gives TTFA 30, playback start
// 110 and one 80 ms stall at chunk 1; fast arrivals (4, 8, 25 frames at
// 30/100/200 ms) start at TTFA without stalls.
func TestPlaybackWorkedNumbers(t *testing.T) {
	r := Playback(0, arrivals(30, 80, 190, 2000, 348, 2000))
	if r.TTFAMS != 30 || r.StartMS != 110 || r.Stalls != 1 || r.StallMS != 80 || r.AudioMS != 4080 {
		t.Errorf("default schedule: %+v, want TTFA 30, start 110, 1 stall of 80 ms, 4080 ms audio", r)
	}
	r = Playback(0, arrivals(30, 320, 100, 640, 200, 2000))
	if r.TTFAMS != 30 || r.StartMS != 30 || r.Stalls != 0 || r.StallMS != 0 {
		t.Errorf("fast arrivals: %+v, want start = TTFA 30, no stall", r)
	}
	// Submission offset: every time is relative to it.
	r = Playback(10*time.Millisecond, arrivals(30, 80, 190, 2000))
	if r.TTFAMS != 20 || r.StartMS != 100 || r.Stalls != 1 || r.StallMS != 80 {
		t.Errorf("offset: %+v", r)
	}
	if r := Playback(0, nil); r != (PlaybackReport{}) {
		t.Errorf("no arrivals: %+v", r)
	}
}
