package sched

import "testing"

// TestAdaptiveCodecLoadWorked: with the codec stage's figure the greedy
// size counts each frame's decode. Defaults (min 2, max 25, margin 50,
// divisor 15, delta 2), two chunks of 2 frames 140 ms apart (ewma 70; one
// measurement: no ramp), 500 ms of audio delivered:
//
//	no codec figures: greedy floor(450/70) = 6, floor the last target 2 → 6
//	20 ms a frame:    greedy floor(450/90) = 5 → 5
func TestAdaptiveCodecLoadWorked(t *testing.T) {
	for _, c := range []struct {
		name string
		load *CodecLoad
		want int
	}{
		{"none", nil, 6},
		{"20 ms a frame", &CodecLoad{MSPerFrame: 20}, 5},
	} {
		a, err := NewAdaptive(DefaultAdaptiveConfig())
		if err != nil {
			t.Fatal(err)
		}
		a.Emit(0, 2)
		a.Emit(140, 2)
		a.SetBuffer(func(float64) float64 { return 500 })
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
}

// TestAdaptiveRampWorked: the ramp floor waits for two measurements, both
// the EWMA and the newest at 80 ms a frame or more. Defaults, nothing
// delivered (the greedy size is min 2), chunks of 2 frames:
//
//	t=0, 180:      one measurement (90): no ramp yet → 2
//	t=360:         90 again, ewma 90: floor 2 + max(2, int(90/15)) = 8 → 8
//
// and a slow start that then keeps up:
//
//	t=0, 180, 300: samples 90, 60; ewma 0.3·60 + 0.7·90 = 81 ≥ 80 but the
//	               newest 60 < 80: no ramp → 2
//	t=420:         60, ewma 74.7 → 2
//
// and a slow interval after a fast start:
//
//	t=0, 120, 240, 420: samples 60, 60, 90; ewma 0.3·90 + 0.7·60 = 69 < 80
//	                    though the newest is 90: no ramp → 2
func TestAdaptiveRampWorked(t *testing.T) {
	run := func(times []float64) *Adaptive {
		a, err := NewAdaptive(DefaultAdaptiveConfig())
		if err != nil {
			t.Fatal(err)
		}
		a.SetBuffer(func(float64) float64 { return 0 })
		for _, at := range times {
			a.Emit(at, 2)
		}
		return a
	}
	if got := run([]float64{0, 180}).Target(180); got != 2 {
		t.Errorf("one slow measurement: target %d, want 2 (no ramp yet)", got)
	}
	if got := run([]float64{0, 180, 360}).Target(360); got != 8 {
		t.Errorf("two slow measurements: target %d, want the ramp floor 8", got)
	}
	a := run([]float64{0, 180, 300})
	if e := a.EWMA(); e < 80.999 || e > 81.001 {
		t.Fatalf("slow start: ewma %v, want 81", e)
	}
	if got := a.Target(300); got != 2 {
		t.Errorf("slow start, then 60 ms a frame: target %d, want 2 (no ramp)", got)
	}
	if got := run([]float64{0, 180, 300, 420}).Target(420); got != 2 {
		t.Errorf("slow start, then 60 ms a frame twice: target %d, want 2", got)
	}
	a = run([]float64{0, 120, 240, 420})
	if e := a.EWMA(); e < 68.999 || e > 69.001 {
		t.Fatalf("one slow interval: ewma %v, want 69", e)
	}
	if got := a.Target(420); got != 2 {
		t.Errorf("one slow interval after 60 ms frames: target %d, want 2 (the EWMA is faster than real time)", got)
	}
}

// chunkArrival is one chunk in simulateChunks: when its audio reaches the
// player, how much audio it holds, how many frames.
type chunkArrival struct {
	at, audio float64
	frames    int
}

// simulateChunks runs the controller against one stream whose frame i
// takes msPerFrame(i) to generate and whose chunks a codec decodes one
// after another at decodeMS a frame, the buffer counted from the audio
// delivered (a player starting at the first chunk's audio). It returns the
// chunks as they arrive.
func simulateChunks(t *testing.T, frames int, msPerFrame func(int) float64, decodeMS float64) []chunkArrival {
	t.Helper()
	a, err := NewAdaptive(DefaultAdaptiveConfig())
	if err != nil {
		t.Fatal(err)
	}
	var arrivals []chunkArrival
	a.SetBuffer(func(now float64) float64 {
		var audio float64
		for _, r := range arrivals {
			if r.at <= now {
				audio += r.audio
			}
		}
		if len(arrivals) == 0 || arrivals[0].at > now {
			return 0
		}
		return audio - (now - arrivals[0].at)
	})
	a.SetCodecLoad(func() CodecLoad { return CodecLoad{MSPerFrame: decodeMS} })
	now, pending, codecFree := 0.0, 0, 0.0
	for i := 0; i < frames; i++ {
		now += msPerFrame(i)
		pending++
		if !a.Ready(pending, now) && i < frames-1 {
			continue
		}
		a.Emit(now, pending)
		codecFree = max(now, codecFree) + decodeMS*float64(pending)
		arrivals = append(arrivals, chunkArrival{codecFree, float64(pending) * 80, pending})
		pending = 0
	}
	return arrivals
}

// underruns is, by definition, how long a player that starts at the first
// chunk's audio waits for each later chunk (0 when it is there in time;
// each wait shifts the player's clock).
func underruns(arrivals []chunkArrival) []float64 {
	waits := make([]float64, len(arrivals))
	if len(arrivals) == 0 {
		return waits
	}
	clock, played := arrivals[0].at, 0.0
	for i, r := range arrivals {
		if need := clock + played; i > 0 && r.at > need {
			waits[i] = r.at - need
			clock += waits[i]
		}
		played += r.audio
	}
	return waits
}

// TestAdaptiveCodecLoadNoStall: a producer between the old 68 ms line
// (session 6) and real time (70, 74 ms) with a codec taking 20 ms a frame never lets the player
// run dry after the first chunk, and its chunks still grow past 16 frames
// (at 74 ms the buffer covers about 19–24 frames of generation and decode;
// the steady 25 needs 25 × 94 + 50 ms).
func TestAdaptiveCodecLoadNoStall(t *testing.T) {
	for _, ms := range []float64{70, 74} {
		arrivals := simulateChunks(t, 600, func(int) float64 { return ms }, 20)
		for i, w := range underruns(arrivals) {
			if w > 0 {
				t.Fatalf("%v ms/frame: chunk %d (%d frames) arrives %.0f ms after the player ran dry", ms, i, arrivals[i].frames, w)
			}
		}
		if last := arrivals[len(arrivals)-2].frames; last < 16 {
			t.Errorf("%v ms/frame: chunk of %d frames near the end, want 16 or more by 600 frames", ms, last)
		}
	}
}

// TestAdaptiveSlowStartNoStall is four streams on two cores (wave 3,
// session 16): the first four frames take 90 ms (the first chunks' decode
// shares the cores), every later one 66 ms, the codec 12 ms a frame. The
// second chunk is late whatever the controller does (its frames were made
// at 90 ms); after it the player never runs dry (the slow start does not
// start a ramp that outgrows the buffer), and the chunks grow as the
// buffer does.
func TestAdaptiveSlowStartNoStall(t *testing.T) {
	ms := func(i int) float64 {
		if i < 4 {
			return 90
		}
		return 66
	}
	arrivals := simulateChunks(t, 400, ms, 12)
	for i, w := range underruns(arrivals) {
		if i > 1 && w > 0 {
			t.Fatalf("chunk %d (%d frames) arrives %.0f ms after the player ran dry", i, arrivals[i].frames, w)
		}
	}
	if last := arrivals[len(arrivals)-2].frames; last < 8 {
		t.Errorf("chunk of %d frames near the end, want chunks grown to 8 or more by 400 frames", last)
	}
}
