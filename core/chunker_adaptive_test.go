package core

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/sched"
)

// timedStream is what one stream of a timed run produced.
type timedStream struct {
	id     string
	frames []Frame
	chunks []Chunk
	codes  [][Codebooks]int32
}

// runTimed runs reqs on an inline engine over the fake model whose talker
// decode advances a fake clock by steps[k % len(steps)] at step k (the
// fake step time), and returns every stream's frames, chunks and codes.
func runTimed(t *testing.T, batch int, steps []time.Duration, reqs []Request, edit func(*Config)) []timedStream {
	t.Helper()
	m := newFake(batch)
	clk := newFakeClock()
	k := 0
	m.onStep = func() {
		clk.Advance(steps[k%len(steps)])
		k++
	}
	e := newEngine(t, m, func(c *Config) {
		c.Clock = clk
		if edit != nil {
			edit(c)
		}
	})
	ss := submitAll(t, e, reqs)
	drain(t, e)
	var out []timedStream
	for _, s := range ss {
		ts := timedStream{id: s.ID()}
		for _, ev := range events(t, s) {
			switch ev.Kind {
			case EventFrame:
				ts.frames = append(ts.frames, ev.Frame)
			case EventChunk:
				ts.chunks = append(ts.chunks, ev.Chunk)
			}
		}
		if end := s.End(); end.Reason != EndLength {
			t.Fatalf("stream %s ended %v (%v), want length", s.ID(), end.Reason, end.Err)
		}
		ts.codes = s.Codes()
		out = append(out, ts)
	}
	if n := m.liveSeqs(); n != 0 {
		t.Errorf("%d sequences still allocated", n)
	}
	return out
}

// checkChunks checks what every chunking must give: chunks in index order,
// contiguous, covering every frame exactly once, one final chunk last, the
// left context min(first, lc) and codes of left context + new frames.
func checkChunks(t *testing.T, name string, s timedStream, lc int) {
	t.Helper()
	next := 0
	for i, c := range s.chunks {
		if c.Index != i || c.First != next {
			t.Errorf("%s stream %s chunk %d: index %d first %d, want index %d first %d", name, s.id, i, c.Index, c.First, i, next)
		}
		if c.Final != (i == len(s.chunks)-1) {
			t.Errorf("%s stream %s chunk %d of %d: final %v", name, s.id, i, len(s.chunks), c.Final)
		}
		if c.Frames < 1 && !c.Final {
			t.Errorf("%s stream %s chunk %d has %d frames", name, s.id, i, c.Frames)
		}
		if want := min(c.First, lc); c.LeftContext != want {
			t.Errorf("%s stream %s chunk %d: left context %d, want %d", name, s.id, i, c.LeftContext, want)
		}
		if len(c.Codes) != c.LeftContext+c.Frames {
			t.Errorf("%s stream %s chunk %d: %d frames of codes, want %d", name, s.id, i, len(c.Codes), c.LeftContext+c.Frames)
		}
		next += c.Frames
	}
	if next != len(s.frames) || next != len(s.codes) {
		t.Errorf("%s stream %s: chunks cover %d frames, stream has %d (%d codes)", name, s.id, next, len(s.frames), len(s.codes))
	}
}

// sizes returns the chunks' frame counts.
func sizes(cs []Chunk) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Frames)
	}
	return out
}

// refCut is one chunk boundary of the reference.
type refCut struct {
	First, Frames int
	At            time.Duration // the reading the chunk was cut at
}

// referenceCuts drives a bare sched.Adaptive by hand with the frames'
// clock readings: after each frame, every frame not yet covered makes a
// chunk when the controller is Ready for them. The final flush is not
// included.
func referenceCuts(t *testing.T, cfg sched.AdaptiveConfig, frames []Frame) []refCut {
	t.Helper()
	a, err := sched.NewAdaptive(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var cuts []refCut
	emitted := 0
	for i, f := range frames {
		now := float64(f.At) / float64(time.Millisecond)
		if n := i + 1 - emitted; a.Ready(n, now) {
			a.Emit(now, n)
			cuts = append(cuts, refCut{emitted, n, f.At})
			emitted += n
		}
	}
	return cuts
}

// engineCuts returns the engine's non-final chunks as refCuts.
func engineCuts(cs []Chunk) []refCut {
	var out []refCut
	for _, c := range cs {
		if !c.Final {
			out = append(out, refCut{c.First, c.Frames, c.ReadyAt})
		}
	}
	return out
}

// adaptiveReqs are streams of different lengths, one admitted late (the
// batch holds two).
func adaptiveReqs() []Request {
	return []Request{
		seeded("a", []int32{1, 2, 3}, 31, 90),
		seeded("b", []int32{4, 5}, 32, 47),
		seeded("c", []int32{6, 7, 8, 9}, 33, 120),
	}
}

func ms2d(v ...float64) []time.Duration {
	var out []time.Duration
	for _, x := range v {
		out = append(out, time.Duration(x*float64(time.Millisecond)))
	}
	return out
}

// TestAdaptiveChunksMatchReference checks the engine's adaptive chunk
// boundaries, stream by stream, against a bare sched.Adaptive driven by
// hand with the same clock readings (the frames' At), for fast, slow,
// near-real-time and jittery fake step times; with MaxFrames 0 the
// reference is given the fixed ramp's steady chunk explicitly.
func TestAdaptiveChunksMatchReference(t *testing.T) {
	custom := sched.FixedRamp{Ramp: []int{3, 5}, ChunkFrames: 12, LeftContextFrames: 8}
	for _, tc := range []struct {
		name  string
		steps []time.Duration
		ramp  sched.FixedRamp // zero: the default
		max   int             // the reference's MaxFrames
	}{
		{"fast", ms2d(10), sched.FixedRamp{}, 25},
		{"slow", ms2d(100), sched.FixedRamp{}, 25},
		{"near-real-time", ms2d(45), sched.FixedRamp{}, 25},
		{"jitter", ms2d(30, 120, 60, 5, 95, 41.5, 250), sched.FixedRamp{}, 25},
		{"custom-max", ms2d(12, 70), custom, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			engineCfg := sched.DefaultAdaptiveConfig()
			engineCfg.MaxFrames = 0 // defaults to the ramp's steady chunk
			ss := runTimed(t, 2, tc.steps, adaptiveReqs(), func(c *Config) {
				c.Chunks = tc.ramp
				c.Adaptive = &engineCfg
			})
			refCfg := sched.DefaultAdaptiveConfig()
			refCfg.MaxFrames = tc.max
			lc := sched.DefaultLeftContextFrames
			if tc.ramp.LeftContextFrames != 0 {
				lc = tc.ramp.LeftContextFrames
			}
			for _, s := range ss {
				checkChunks(t, tc.name, s, lc)
				want, got := referenceCuts(t, refCfg, s.frames), engineCuts(s.chunks)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("stream %s: engine chunks %v,\nreference %v", s.id, got, want)
				}
			}
		})
	}
}

// TestAdaptiveSlowProducerRampsByFloor: at 100 ms per frame (slower than
// the 80 ms of audio a frame carries) the buffer never covers a chunk, so
// every chunk is the ramp floor: 2 (MinFrames), 2 (no measurement yet: no
// growth), 2 (one measurement: the ramp waits for a second), then
// +max(2, int(100/15)) = +6 a chunk (8, 14, 20), capped at 25; 120 frames
// = 2+2+2+8+14+20+25+25 and a final 22.
func TestAdaptiveSlowProducerRampsByFloor(t *testing.T) {
	cfg := sched.DefaultAdaptiveConfig()
	r := seeded("slow", []int32{1, 2}, 41, 120)
	ss := runTimed(t, 1, ms2d(100), []Request{r}, func(c *Config) { c.Adaptive = &cfg })
	checkChunks(t, "slow", ss[0], sched.DefaultLeftContextFrames)
	if got, want := sizes(ss[0].chunks), []int{2, 2, 2, 8, 14, 20, 25, 25, 22}; !reflect.DeepEqual(got, want) {
		t.Errorf("chunk sizes %v, want %v", got, want)
	}
}

// TestAdaptiveFastProducerLocksToMax: at 10 ms per frame the second chunk
// (2 frames: no growth before a measurement, cut at 30 ms, 20 ms after the
// first) measures 10 ms/frame with 4 × 80 − 20 = 300 ms of audio
// buffered, 25 × 10 + 50, so the controller locks to 25:
// 120 frames = 2+2+4×25 and a final 16.
func TestAdaptiveFastProducerLocksToMax(t *testing.T) {
	cfg := sched.DefaultAdaptiveConfig()
	r := seeded("fast", []int32{1, 2}, 42, 120)
	ss := runTimed(t, 1, ms2d(10), []Request{r}, func(c *Config) { c.Adaptive = &cfg })
	checkChunks(t, "fast", ss[0], sched.DefaultLeftContextFrames)
	if got, want := sizes(ss[0].chunks), []int{2, 2, 25, 25, 25, 25, 16}; !reflect.DeepEqual(got, want) {
		t.Errorf("chunk sizes %v, want %v", got, want)
	}
}

// TestAdaptiveChunkingKeepsCodes: chunking never changes codes: the fixed
// ramp and adaptive chunking at several step times give every stream the
// same codes (and complete, contiguous chunks).
func TestAdaptiveChunkingKeepsCodes(t *testing.T) {
	steps := ms2d(20)
	fixed := runTimed(t, 2, steps, adaptiveReqs(), nil)
	for _, s := range fixed {
		checkChunks(t, "fixed", s, sched.DefaultLeftContextFrames)
	}
	for _, st := range [][]time.Duration{ms2d(10), ms2d(100), ms2d(30, 120, 60, 5)} {
		cfg := sched.DefaultAdaptiveConfig()
		ad := runTimed(t, 2, st, adaptiveReqs(), func(c *Config) { c.Adaptive = &cfg })
		for i, s := range ad {
			checkChunks(t, "adaptive", s, sched.DefaultLeftContextFrames)
			if !reflect.DeepEqual(s.codes, fixed[i].codes) {
				t.Errorf("steps %v stream %s: adaptive chunking changed the codes", st, s.id)
			}
			if reflect.DeepEqual(sizes(s.chunks), sizes(fixed[i].chunks)) {
				t.Errorf("steps %v stream %s: adaptive chunks %v equal the fixed ramp's (adaptive not in force?)", st, s.id, sizes(s.chunks))
			}
		}
	}
}

// TestChunkerAdaptiveLeft checks left (the throttle's frames to the next
// chunk) on worked numbers: frames every 100 ms from t = 0; the first
// chunk waits for MinFrames 2, the second for the last target 2 (no
// measurement yet: no growth), the third for 2 as well (one measurement,
// (300 − 100) / 2 = 100 ms per frame: the ramp waits for a second), the
// fourth (EWMA 100 ms per frame twice, slower than the 80 ms a frame
// plays: the ramp floor) for 2 + max(2, int(100/15)) = 8, the fifth for
// 8 + 6 = 14; the final chunk takes frames 14–17.
func TestChunkerAdaptiveLeft(t *testing.T) {
	c := chunker{ramp: sched.DefaultFixedRamp()}
	c.startAdaptive(sched.DefaultAdaptiveConfig())
	at := func(total int) float64 { return float64(100 * (total - 1)) }
	if l := c.left(0, 0); l != 2 {
		t.Errorf("left(0) = %d, want 2", l)
	}
	type step struct{ total, left int }
	var got []step
	var cut []int
	for total := 1; total <= 16; total++ {
		if ch, ok := c.next(total, at(total)); ok {
			cut = append(cut, ch.Frames)
		}
		got = append(got, step{total, c.left(total, at(total))})
	}
	want := []step{{1, 1}, {2, 2}, {3, 1}, {4, 2}, {5, 1}, {6, 8}, {7, 7}, {8, 6}, {9, 5}, {10, 4}, {11, 3}, {12, 2}, {13, 1}, {14, 14}, {15, 13}, {16, 12}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("left after each frame %v,\nwant %v", got, want)
	}
	if !reflect.DeepEqual(cut, []int{2, 2, 2, 8}) {
		t.Errorf("chunks %v, want [2 2 2 8]", cut)
	}
	f := c.finish(18)
	if !f.Final || f.First != 14 || f.Frames != 4 || f.LeftContext != 14 || f.Index != 4 {
		t.Errorf("final chunk %+v, want index 4 first 14 frames 4 context 14", f)
	}
}

// TestConfigAdaptiveJSON: the WASI host sends core.Config as JSON; the
// adaptive settings must arrive intact (and nil stay nil).
func TestConfigAdaptiveJSON(t *testing.T) {
	a := sched.AdaptiveConfig{MinFrames: 3, MaxFrames: 20, SafetyMarginMS: 37.5, RampDivisor: 12, RampDeltaMin: 4, Alpha: 0.25, FrameMS: 80}
	in := Config{Chunks: sched.DefaultFixedRamp(), Adaptive: &a, HopDepth: 3, Seed: 9}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Config
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	if out.Adaptive == nil || *out.Adaptive != a {
		t.Errorf("adaptive after the round trip %+v, want %+v (json %s)", out.Adaptive, a, b)
	}
	if !reflect.DeepEqual(out.Chunks, in.Chunks) || out.HopDepth != 3 || out.Seed != 9 {
		t.Errorf("round trip lost fields: %+v", out)
	}
	b, err = json.Marshal(Config{})
	if err != nil {
		t.Fatal(err)
	}
	out = Config{}
	if err := json.Unmarshal(b, &out); err != nil || out.Adaptive != nil {
		t.Errorf("nil adaptive after the round trip: %+v, %v", out.Adaptive, err)
	}
}

// TestConfigAdaptiveValidated: New refuses a bad adaptive config with a
// core-prefixed error naming the field, and defaults MaxFrames to the
// ramp's steady chunk without touching the caller's struct.
func TestConfigAdaptiveValidated(t *testing.T) {
	for _, tc := range []struct {
		edit func(*sched.AdaptiveConfig)
		want string
	}{
		{func(a *sched.AdaptiveConfig) { a.Alpha = 0 }, "alpha"},
		{func(a *sched.AdaptiveConfig) { a.FrameMS = -1 }, "frame_ms"},
		{func(a *sched.AdaptiveConfig) { a.RampDivisor = 0 }, "ramp_divisor"},
		{func(a *sched.AdaptiveConfig) { a.SafetyMarginMS = -5 }, "safety_margin_ms"},
		{func(a *sched.AdaptiveConfig) { a.MaxFrames = -3 }, "max_frames -3"},
		{func(a *sched.AdaptiveConfig) { a.MinFrames = -1 }, "min_frames -1"},
	} {
		a := sched.DefaultAdaptiveConfig()
		tc.edit(&a)
		_, err := New(Config{Model: newFake(1), IDs: tinyIDs(), Inline: true, Adaptive: &a})
		if err == nil || !strings.HasPrefix(err.Error(), "core: adaptive chunks: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("adaptive %+v: err = %v, want a core: adaptive chunks error naming %q", a, err, tc.want)
		}
	}
	a := sched.DefaultAdaptiveConfig()
	a.MaxFrames = 0
	e := newEngine(t, newFake(1), func(c *Config) {
		c.Chunks = sched.FixedRamp{Ramp: []int{1, 3}, ChunkFrames: 12, LeftContextFrames: 8}
		c.Adaptive = &a
	})
	if got := e.cfg.Adaptive.MaxFrames; got != 12 {
		t.Errorf("defaulted max frames %d, want 12 (the ramp's chunk_frames)", got)
	}
	if a.MaxFrames != 0 {
		t.Errorf("New changed the caller's adaptive config: max frames %d", a.MaxFrames)
	}
}

// TestChunkerAdaptiveNoAlloc: the per-frame calls (next, left) allocate
// nothing once the controller exists.
func TestChunkerAdaptiveNoAlloc(t *testing.T) {
	c := chunker{ramp: sched.DefaultFixedRamp()}
	c.startAdaptive(sched.DefaultAdaptiveConfig())
	total := 0
	allocs := testing.AllocsPerRun(1000, func() {
		total++
		now := float64(37 * total)
		c.next(total, now)
		c.left(total, now)
	})
	if allocs != 0 {
		t.Errorf("next+left: %v allocations per frame, want 0", allocs)
	}
}
