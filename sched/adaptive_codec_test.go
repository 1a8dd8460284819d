package sched

import "testing"

// TestAdaptiveCodecLoadWorked: with the codec stage's figures the greedy
// size counts each frame's decode, and a codec with time to spare moves the
// ramp line from 68 ms a frame to 80. Defaults (min 2, max 25, margin 50,
// divisor 15, delta 2), two chunks of 2 frames 140 ms apart (ewma 70), 500
// ms of audio delivered:
//
//	no codec figures:     greedy floor(450/70) = 6, ramp floor 2 + max(2, int(70/15)) = 6 → 6
//	busy 0.3, 20 ms/frame: greedy floor(450/90) = 5, floor the last target 2 → 5
//	busy 0.7, 20 ms/frame: greedy 5, ramp floor 6 (a busy codec: 68 ms line) → 6
func TestAdaptiveCodecLoadWorked(t *testing.T) {
	buf := 500.0
	for _, c := range []struct {
		name string
		load *CodecLoad
		want int
	}{
		{"none", nil, 6},
		{"spare", &CodecLoad{Busy: 0.3, MSPerFrame: 20}, 5},
		{"busy", &CodecLoad{Busy: 0.7, MSPerFrame: 20}, 6},
	} {
		a, err := NewAdaptive(DefaultAdaptiveConfig())
		if err != nil {
			t.Fatal(err)
		}
		a.Emit(0, 2)
		a.Emit(140, 2)
		a.SetBuffer(func(float64) float64 { return buf })
		if c.load != nil {
			l := *c.load
			a.SetCodecLoad(func() CodecLoad { return l })
		}
		if a.EWMA() != 70 {
			t.Fatalf("%s: ewma %v, want 70", c.name, a.EWMA())
		}
		if got := a.Target(140); got != c.want {
			t.Errorf("%s: target %d, want %d", c.name, got, c.want)
		}
	}
	// Slower than real time the ramp runs even with a codec to spare: 2
	// chunks of 2 frames 180 ms apart (ewma 90), nothing delivered: floor 2
	// + max(2, int(90/15)) = 8.
	a, _ := NewAdaptive(DefaultAdaptiveConfig())
	a.Emit(0, 2)
	a.Emit(180, 2)
	a.SetBuffer(func(float64) float64 { return 0 })
	a.SetCodecLoad(func() CodecLoad { return CodecLoad{Busy: 0.2, MSPerFrame: 20} })
	if got := a.Target(180); got != 8 {
		t.Errorf("slower than real time: target %d, want the ramp floor 8", got)
	}
}

// TestAdaptiveCodecLoadNoStall simulates one stream whose chunks are
// decoded one after another by a codec taking decodeMS per frame, the
// player starting at the first chunk's audio: a producer between the 68 ms
// line and real time (70, 74 ms a frame) with a codec to spare (busy 0.3)
// never lets the player run dry after the first chunk, and its chunks
// still grow past 16 frames (at 74 ms the buffer covers about 19–24 frames
// of generation and decode; the steady 25 needs 25 × 94 + 50 ms). (Without the codec figures the ramp from 68 ms cuts a
// chunk the buffer cannot wait for: that is what this guards.)
func TestAdaptiveCodecLoadNoStall(t *testing.T) {
	const decodeMS = 20.0
	for _, msPerFrame := range []float64{70, 74} {
		a, err := NewAdaptive(DefaultAdaptiveConfig())
		if err != nil {
			t.Fatal(err)
		}
		type arrival struct{ at, audio float64 }
		var arrivals []arrival
		codecFree := 0.0
		delivered := func(now float64) (audio, start float64) {
			start = -1
			for _, r := range arrivals {
				if r.at <= now {
					audio += r.audio
					if start < 0 {
						start = r.at
					}
				}
			}
			return audio, start
		}
		a.SetBuffer(func(now float64) float64 {
			audio, start := delivered(now)
			if start < 0 {
				return 0
			}
			return audio - (now - start)
		})
		a.SetCodecLoad(func() CodecLoad { return CodecLoad{Busy: 0.3, MSPerFrame: decodeMS} })
		now, pending, last := 0.0, 0, 0
		for frame := 0; frame < 600; frame++ {
			now += msPerFrame
			pending++
			if !a.Ready(pending, now) {
				continue
			}
			last = a.Target(now)
			a.Emit(now, pending)
			done := max(now, codecFree) + decodeMS*float64(pending)
			codecFree = done
			if len(arrivals) > 0 {
				audio, start := delivered(done - 1e-9)
				if left := audio - (done - start); left < 0 {
					t.Fatalf("%v ms/frame: chunk %d (%d frames) arrives %.0f ms after the player ran dry", msPerFrame, len(arrivals), pending, -left)
				}
			}
			arrivals = append(arrivals, arrival{done, float64(pending) * 80})
			pending = 0
		}
		if last < 16 {
			t.Errorf("%v ms/frame: last target %d, want chunks of 16 frames or more by 600 frames", msPerFrame, last)
		}
	}
}
