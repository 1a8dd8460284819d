package sched

import (
	"math"
	"slices"
	"testing"
)

func TestFixedRampBoundaries(t *testing.T) {
	r := DefaultFixedRamp()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	// cum(i) = Σ ramp[:i+1], then 25 per chunk beyond the table.
	want := []int{2, 6, 14, 30, 55, 80, 105}
	for i, w := range want {
		if got := r.ChunkEnd(i); got != w {
			t.Errorf("ChunkEnd(%d) = %d, want %d", i, got, w)
		}
	}
	if r.Ready(0, 1) || !r.Ready(0, 2) || r.Ready(4, 54) || !r.Ready(4, 55) {
		t.Error("Ready disagrees with ChunkEnd")
	}
	if r.LeftContext(6) != 6 || r.LeftContext(100) != 72 || r.LeftContext(-3) != 0 {
		t.Error("LeftContext is not min(start, 72)")
	}
	for _, bad := range []FixedRamp{
		{Ramp: []int{25}, ChunkFrames: 25},
		{Ramp: []int{2, 0}, ChunkFrames: 25},
		{Ramp: []int{2, 4}, ChunkFrames: 0},
		{Ramp: []int{2, 4}, ChunkFrames: 4, LeftContextFrames: -1},
	} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
	if got, err := ParseRamp(" 2, 4,8,16,25"); err != nil || !slices.Equal(got, DefaultRamp()) {
		t.Errorf("ParseRamp = %v, %v", got, err)
	}
	for _, bad := range []string{"", "4", "2,x", "2,-1"} {
		if _, err := ParseRamp(bad); err == nil {
			t.Errorf("ParseRamp(%q) succeeded", bad)
		}
	}
}

// TestAdaptiveNeverShrinksAndLocksToSteady drives the controller with a
// periodic producer: the targets never shrink and start at min_frames 2,
// and the EWMA measures the producer. A producer faster than the 80 ms a
// frame plays (20, 60, 67, 79 ms) never lets the player run dry after the
// first chunk (the audio sent, frames × 80 ms, covers the time since the
// first chunk at every later one); below 68 ms (a buffer growing more
// than 12 ms a frame) it locks to 25 by covering it within 400 frames. A
// slower one (80, 95, 150 ms) reaches 25 by the ramp floor.
func TestAdaptiveNeverShrinksAndLocksToSteady(t *testing.T) {
	for _, msPerFrame := range []float64{20, 60, 67, 79, 80, 95, 150} {
		a, err := NewAdaptive(DefaultAdaptiveConfig())
		if err != nil {
			t.Fatal(err)
		}
		frames := 400
		now, pending, prev := 0.0, 0, 0
		var targets []int
		for frame := 0; frame < frames; frame++ {
			now += msPerFrame
			pending++
			if a.Ready(pending, now) {
				tgt := a.Target(now)
				if tgt < prev {
					t.Fatalf("%v ms/frame: target %d after %d (shrank)", msPerFrame, tgt, prev)
				}
				if buf := a.BufferMS(now); msPerFrame < 80 && buf < 0 {
					t.Fatalf("%v ms/frame: chunk %d arrives %v ms after the player ran dry", msPerFrame, len(targets), -buf)
				}
				targets = append(targets, tgt)
				prev = tgt
				a.Emit(now, pending)
				pending = 0
			}
		}
		if targets[0] != 2 {
			t.Errorf("%v ms/frame: first target %d, want min_frames 2", msPerFrame, targets[0])
		}
		last := targets[len(targets)-1]
		switch {
		case msPerFrame < 68 && (last != 25 || !a.Steady()):
			t.Errorf("%v ms/frame: last target %d (steady %v), want locked to 25 (targets %v)", msPerFrame, last, a.Steady(), targets)
		case msPerFrame >= 80 && last != 25:
			t.Errorf("%v ms/frame: last target %d, want the ramp to reach 25 (targets %v)", msPerFrame, last, targets)
		}
		// The EWMA measures the generator (all chunks here are periodic).
		if math.Abs(a.EWMA()-msPerFrame) > 1e-9 {
			t.Errorf("%v ms/frame: ewma %v", msPerFrame, a.EWMA())
		}
	}
}

func TestAdaptiveWorkedTrace(t *testing.T) {
	// Hand-computed, defaults (min 2, max 25, margin 50, divisor 15, delta 2,
	// α 0.3, 80 ms frames):
	//   t=0   emit 2 frames (first target = min 2);      buffer 160
	//   t=40  emit 2 → sample 20 ms/frame, ewma 20;     buffer 320 − 40 = 280
	//         steady? 280 ≥ 25·20 + 50 = 550: no
	//   t=40  target: greedy floor((280−50)/20) = 11; 20 < 80 ms/frame, so
	//         the floor is the last target 2 → 11
	a, _ := NewAdaptive(DefaultAdaptiveConfig())
	if a.Target(0) != 2 {
		t.Fatalf("first target %d, want 2", a.Target(0))
	}
	a.Emit(0, 2)
	if got := a.Target(40); got != 2 {
		t.Errorf("target before a measurement = %d, want the last target 2 (no growth unmeasured)", got)
	}
	a.Emit(40, 2)
	if a.EWMA() != 20 || a.BufferMS(40) != 280 || a.Steady() {
		t.Fatalf("ewma %v buffer %v steady %v, want 20, 280, false", a.EWMA(), a.BufferMS(40), a.Steady())
	}
	if got := a.Target(40); got != 11 {
		t.Errorf("target = %d, want 11", got)
	}
	//   t=260 emit 11 → sample 220/11 = 20, ewma 20; buffer 15·80 − 260 = 940
	//         ≥ 550 → steady: every later target is 25.
	a.Emit(260, 11)
	if !a.Steady() || a.Target(261) != 25 {
		t.Errorf("steady %v target %d, want locked to 25", a.Steady(), a.Target(261))
	}
	if _, err := NewAdaptive(AdaptiveConfig{Alpha: 0}); err == nil {
		t.Error("NewAdaptive(alpha 0) succeeded")
	}
}

func TestFramesPerSecondL20XShape(t *testing.T) {
	// 1, 25, 25 frames at 30/190/350 ms (24 kHz, 1920 samples a frame).
	chunks := []ChunkSamples{{30, 1920}, {190, 25 * 1920}, {350, 25 * 1920}}
	rate, ok := FramesPerSecond(chunks, 24000, 80)
	if !ok || math.Abs(rate-50/0.32) > 1e-9 {
		t.Errorf("FramesPerSecond = %v, %v; want %v", rate, ok, 50/0.32)
	}
	if _, ok := FramesPerSecond(chunks[:1], 24000, 80); ok {
		t.Error("one chunk measured a rate")
	}
	if _, ok := FramesPerSecond([]ChunkSamples{{30, 1920}, {40, 0}, {30, 1920}}, 24000, 80); ok {
		t.Error("zero wall time measured a rate")
	}
}

// TestDeriveChunkScheduleFrameMS checks that frame_ms reaches every
// formula, frame count included, with numbers worked by hand for a 40 ms
// frame (960 samples at 24 kHz): 10 frames after the first chunk.
func TestDeriveChunkScheduleFrameMS(t *testing.T) {
	o := DefaultCalibrateOptions()
	o.FrameMS = 40
	for _, tc := range []struct {
		name                     string
		lastMS                   float64
		rate, rtf, produce, lead float64
		min                      int
		margin                   float64
		ramp                     []int
		adaptive                 bool
	}{
		// 10 frames in 0.1 s: rate 100, rtf 25/100, produce 10 ms, lead
		// 40 + 0, min ceil(40/40) = 1, margin 40 + 10.
		{"fast", 100, 100, 0.25, 10, 40, 1, 50, []int{1, 2, 4, 8, 16, 25}, false},
		// 10 frames in 1 s: rate 10, rtf 2.5, produce 100, lead 40 + 60·25
		// = 1540, min ceil(1540/40) = 39 → 25, margin 140.
		{"slow", 1000, 10, 2.5, 100, 1540, 25, 140, []int{12, 25}, true},
	} {
		chunks := []ChunkSamples{{0, 960}, {tc.lastMS, 10 * 960}}
		rate, ok := FramesPerSecond(chunks, 24000, o.FrameMS)
		if !ok || math.Abs(rate-tc.rate) > 1e-9 {
			t.Errorf("%s: FramesPerSecond at 40 ms = %v, %v; want %v", tc.name, rate, ok, tc.rate)
		}
		c, err := DeriveChunkSchedule(chunks, 24000, o)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.FramesPerSecond-tc.rate) > 1e-9 || math.Abs(c.RTF-tc.rtf) > 1e-9 || math.Abs(c.ProduceMSPerFrame-tc.produce) > 1e-9 ||
			math.Abs(c.LeadNeededMS-tc.lead) > 1e-9 || c.MinFrames != tc.min || math.Abs(c.MarginMS-tc.margin) > 1e-9 ||
			!slices.Equal(c.Ramp, tc.ramp) || c.Adaptive != tc.adaptive {
			t.Errorf("%s: %+v; want rate %v rtf %v produce %v lead %v min %d margin %v ramp %v adaptive %v",
				tc.name, c, tc.rate, tc.rtf, tc.produce, tc.lead, tc.min, tc.margin, tc.ramp, tc.adaptive)
		}
	}
}

// generator returns the chunks of a request produced at fps frames per
// second, shipped on the default ramp then 25 frames a chunk.
func generator(fps float64, frames int) []ChunkSamples {
	r := DefaultFixedRamp()
	var out []ChunkSamples
	done := 0
	for i := 0; done < frames; i++ {
		end := min(r.ChunkEnd(i), frames)
		out = append(out, ChunkSamples{TMS: 25 + float64(end)*1000/fps, Samples: (end - done) * 1920})
		done = end
	}
	return out
}

func TestDeriveChunkScheduleWorkedNumbers(t *testing.T) {
	o := DefaultCalibrateOptions()
	fast, err := DeriveChunkSchedule(generator(150, 200), 24000, o)
	if err != nil {
		t.Fatal(err)
	}
	if !fast.Measured || fast.RTF >= 0.2 || fast.Adaptive || fast.MinFrames != 1 || fast.Ramp[0] != 1 || fast.Ramp[len(fast.Ramp)-1] != 25 {
		t.Errorf("fast generator: %+v; want rtf < 0.2, not adaptive, min 1, ramp 1 … 25", fast)
	}
	if !slices.Equal(fast.Ramp, []int{1, 2, 4, 8, 16, 25}) {
		t.Errorf("fast ramp %v, want [1 2 4 8 16 25]", fast.Ramp)
	}
	slow, err := DeriveChunkSchedule(generator(10, 200), 24000, o)
	if err != nil {
		t.Fatal(err)
	}
	// (40 + 20·25) / 80 = 6.75 → 7.
	if !slow.Adaptive || slow.RTF <= 1 || slow.MinFrames < 7 {
		t.Errorf("slow generator: %+v; want rtf > 1, adaptive, min_frames ≥ 7", slow)
	}
	if math.Abs(slow.ProduceMSPerFrame-100) > 1e-9 || slow.MinFrames != 7 || math.Abs(slow.MarginMS-140) > 1e-9 {
		t.Errorf("slow: produce %v min %d margin %v, want 100, 7, 140", slow.ProduceMSPerFrame, slow.MinFrames, slow.MarginMS)
	}
	if !slices.Equal(slow.Ramp, []int{7, 14, 25}) {
		t.Errorf("slow ramp %v, want [7 14 25] (strictly increasing, ending at 25)", slow.Ramp)
	}
	none, err := DeriveChunkSchedule(nil, 24000, o)
	if err != nil || none.Measured || !none.Adaptive || none.MinFrames != 2 || none.MarginMS != 50 || !slices.Equal(none.Ramp, []int{2, 4, 8, 16, 25}) {
		t.Errorf("unmeasurable: %+v, %v; want the defaults", none, err)
	}
	// min_frames = steady gives a one-entry ramp: [steady/2, steady].
	vslow, _ := DeriveChunkSchedule(generator(1, 60), 24000, o)
	if vslow.MinFrames != 25 || !slices.Equal(vslow.Ramp, []int{12, 25}) {
		t.Errorf("very slow: min %d ramp %v, want 25, [12 25]", vslow.MinFrames, vslow.Ramp)
	}
	if _, err := DeriveChunkSchedule(nil, 0, o); err == nil {
		t.Error("sample rate 0 accepted")
	}
	if _, err := DeriveChunkSchedule(nil, 24000, CalibrateOptions{SteadyFrames: 1, FrameMS: 80}); err == nil {
		t.Error("steady 1 accepted")
	}
}
