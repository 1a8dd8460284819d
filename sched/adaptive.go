package sched

import (
	"fmt"
	"math"
)

// AdaptiveConfig configures the adaptive chunk controller.
type AdaptiveConfig struct {
	MinFrames      int     `json:"min_frames"`       // smallest chunk (2)
	MaxFrames      int     `json:"max_frames"`       // steady chunk (25, codec_chunk_frames)
	SafetyMarginMS float64 `json:"safety_margin_ms"` // audio kept ahead of the player (50)
	RampDivisor    float64 `json:"ramp_divisor"`     // floor step once slower than real time: max(RampDeltaMin, int(ewma / RampDivisor)) (15)
	RampDeltaMin   int     `json:"ramp_delta_min"`   // least growth per chunk once slower than real time (2)
	Alpha          float64 `json:"alpha"`            // EWMA weight of the newest measurement (0.3)
	FrameMS        float64 `json:"frame_ms"`         // audio per frame (80)
}

// DefaultAdaptiveConfig returns min 2, max 25, margin 50 ms, divisor 15,
// delta 2, α 0.3, 80 ms frames.
func DefaultAdaptiveConfig() AdaptiveConfig {
	return AdaptiveConfig{MinFrames: 2, MaxFrames: DefaultChunkFrames, SafetyMarginMS: 50, RampDivisor: 15, RampDeltaMin: 2, Alpha: 0.3, FrameMS: 80}
}

// Validate checks the fields NewAdaptive does not clamp.
func (c AdaptiveConfig) Validate() error {
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return fmt.Errorf("sched: adaptive alpha %v outside (0, 1]", c.Alpha)
	}
	if !(c.FrameMS > 0) {
		return fmt.Errorf("sched: adaptive frame_ms %v, want > 0", c.FrameMS)
	}
	if !(c.RampDivisor > 0) {
		return fmt.Errorf("sched: adaptive ramp_divisor %v, want > 0", c.RampDivisor)
	}
	if c.SafetyMarginMS < 0 || math.IsNaN(c.SafetyMarginMS) {
		return fmt.Errorf("sched: adaptive safety_margin_ms %v, want ≥ 0", c.SafetyMarginMS)
	}
	return nil
}

// Adaptive sizes one stream's chunks from how fast frames are produced: it
// keeps an EWMA of the measured milliseconds per frame between chunks and
// the audio buffered ahead of the player, never shrinks a chunk (small
// chunks cost the codec more per frame), grows chunks as far as the buffer
// covers them while the producer keeps up with real time, by a ramp floor
// once it is slower than real time (the player waits whatever the chunk
// size; larger chunks spare the codec), and locks to MaxFrames once the
// buffer covers a whole steady chunk plus the margin. Times are
// milliseconds on the caller's clock.
type Adaptive struct {
	cfg        AdaptiveConfig
	chunks     int     // chunks emitted
	frames     int     // frames emitted
	firstMS    float64 // time of the first chunk
	lastMS     float64 // time of the last chunk
	ewma       float64 // ms per frame; 0 until measured
	lastSample float64 // the newest measurement (ms per frame)
	lastTarget int     // target in force at the last chunk
	steady     bool
	buffer     func(nowMS float64) float64 // SetBuffer's source; nil: from the chunks sent
	codec      func() CodecLoad            // SetCodecLoad's source; nil: no codec figure
}

// CodecLoad is what the stage decoding a controller's chunks reports of
// itself: MSPerFrame, how long one frame of a stream's chunk takes to
// decode (the delay between cutting a chunk and its audio reaching the
// player).
type CodecLoad struct {
	MSPerFrame float64
}

// SetCodecLoad gives the controller the codec stage's figure: the greedy
// size and the lock then count each frame's decode beside its generation.
func (a *Adaptive) SetCodecLoad(fn func() CodecLoad) { a.codec = fn }

// SetBuffer makes BufferMS ask fn for the audio ahead of the player
// instead of counting it from the chunks sent: an engine whose codec stage
// decodes the chunks counts the buffer from the audio delivered (fn
// returns 0 before the first delivery).
func (a *Adaptive) SetBuffer(fn func(nowMS float64) float64) { a.buffer = fn }

// rampMeasurements is how many measurements (chunks after the first) the
// ramp waits for: the first interval holds the engine's start (the first
// chunks' decode shares the cores with generation: 85–90 ms a frame at
// four streams on two cores whose steady step takes 60–70), and a chunk
// never shrinks, so one slow start would make every later chunk larger
// than the buffer covers (RATIONALE.md).
const rampMeasurements = 2

// NewAdaptive returns a controller; MinFrames, MaxFrames and RampDeltaMin
// below 1 are raised to 1, and MinFrames above MaxFrames is lowered to it.
func NewAdaptive(cfg AdaptiveConfig) (*Adaptive, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.MinFrames = max(cfg.MinFrames, 1)
	cfg.MaxFrames = max(cfg.MaxFrames, 1)
	cfg.RampDeltaMin = max(cfg.RampDeltaMin, 1)
	cfg.MinFrames = min(cfg.MinFrames, cfg.MaxFrames)
	return &Adaptive{cfg: cfg}, nil
}

// BufferMS is the audio ahead of the player at nowMS: frames emitted × frame
// length − time since the first chunk (0 before it), or SetBuffer's count.
func (a *Adaptive) BufferMS(nowMS float64) float64 {
	if a.chunks == 0 {
		return 0
	}
	if a.buffer != nil {
		return a.buffer(nowMS)
	}
	return float64(a.frames)*a.cfg.FrameMS - (nowMS - a.firstMS)
}

// EWMA is the smoothed milliseconds per frame (0 before two chunks).
func (a *Adaptive) EWMA() float64 { return a.ewma }

// Steady reports whether the controller has locked to MaxFrames.
func (a *Adaptive) Steady() bool { return a.steady }

// Target is the frames the next chunk waits for at nowMS:
// MinFrames for the first chunk; afterwards the greedy size
// clamp(floor(max(0, buffer − margin) / (ewma + decode ms per frame)),
// Min, Max) (Min before a measurement; the decode term with SetCodecLoad),
// raised to the ramp floor, capped at MaxFrames; MaxFrames once steady.
// The ramp floor is the last target (never shrink), plus max(RampDeltaMin,
// int(ewma / RampDivisor)) once the producer is slower than real time: the
// EWMA and the newest measurement both at least FrameMS, from the
// rampMeasurements-th measurement on. Then the player waits whatever the
// chunker does, and larger chunks spare the codec; faster than that, no
// chunk is cut larger than the audio ahead of the player can wait for.
func (a *Adaptive) Target(nowMS float64) int {
	c := a.cfg
	if a.steady {
		return c.MaxFrames
	}
	if a.chunks == 0 {
		return c.MinFrames
	}
	greedy := c.MinFrames
	if a.ewma > 0 {
		buf, per := a.BufferMS(nowMS), a.perFrameMS(a.codecLoad())
		if a.coversSteady(buf, per) {
			return c.MaxFrames
		}
		n := math.Floor(max(0, buf-c.SafetyMarginMS) / per)
		greedy = int(min(max(n, float64(c.MinFrames)), float64(c.MaxFrames)))
	}
	floor := a.lastTarget
	if a.slowerThanRealTime() {
		floor += max(c.RampDeltaMin, int(a.ewma/c.RampDivisor))
	}
	return min(max(floor, greedy), c.MaxFrames)
}

// slowerThanRealTime reports whether the producer has been measured slower
// than the audio it makes: rampMeasurements measurements or more, the EWMA
// and the newest one at FrameMS or above.
func (a *Adaptive) slowerThanRealTime() bool {
	return a.chunks-1 >= rampMeasurements && a.ewma >= a.cfg.FrameMS && a.lastSample >= a.cfg.FrameMS
}

// Ready reports whether newFrames frames not yet sent make a chunk at nowMS.
func (a *Adaptive) Ready(newFrames int, nowMS float64) bool {
	return newFrames >= a.Target(nowMS)
}

// Emit records that a chunk of n frames was sent at nowMS (all the new
// frames: a chunk ships everything accumulated). It updates the EWMA with
// (now − previous chunk) / n and locks to MaxFrames once the buffer covers
// MaxFrames × ewma + margin.
func (a *Adaptive) Emit(nowMS float64, n int) {
	if n < 1 {
		return
	}
	target := a.Target(nowMS)
	if a.chunks == 0 {
		a.firstMS = nowMS
	} else {
		sample := (nowMS - a.lastMS) / float64(n)
		a.lastSample = sample
		if a.ewma == 0 {
			a.ewma = sample
		} else {
			a.ewma = a.cfg.Alpha*sample + (1-a.cfg.Alpha)*a.ewma
		}
	}
	a.chunks++
	a.frames += n
	a.lastMS = nowMS
	a.lastTarget = max(a.lastTarget, target)
	if a.ewma > 0 && a.coversSteady(a.BufferMS(nowMS), a.perFrameMS(a.codecLoad())) {
		a.steady = true
	}
}

// perFrameMS is how long a frame of the next chunk takes to reach the
// player: its generation (the EWMA) and, with the codec's figure, its decode.
func (a *Adaptive) perFrameMS(load CodecLoad) float64 {
	return a.ewma + max(0, load.MSPerFrame)
}

// coversSteady reports whether buf ms of audio ahead of the player cover a
// steady chunk at per ms a frame plus the margin (the lock to MaxFrames).
func (a *Adaptive) coversSteady(buf, per float64) bool {
	return buf >= float64(a.cfg.MaxFrames)*per+a.cfg.SafetyMarginMS
}

// codecLoad is SetCodecLoad's figure, or none.
func (a *Adaptive) codecLoad() CodecLoad {
	if a.codec == nil {
		return CodecLoad{}
	}
	return a.codec()
}
