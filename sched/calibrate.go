package sched

import (
	"fmt"
	"math"
)

// FrameMS is the audio one Qwen3-TTS codec frame carries (12.5 Hz).
const FrameMS = 80.0

// ChunkSamples is one chunk of a measured request: when it arrived and how
// many audio samples it carried.
type ChunkSamples struct {
	TMS     float64 `json:"t_ms"`
	Samples int     `json:"samples"`
}

// FramesPerSecond measures the production rate from one request's chunks.
// Over the chunks that carry audio: frames = Σ samples of all but the first
// / sampleRate × 1000 / frameMS, wall = (last t − first t) / 1000 s, rate =
// frames / wall. ok is false with fewer than two audio chunks, no wall time
// or a frameMS that is not positive.
func FramesPerSecond(chunks []ChunkSamples, sampleRate int, frameMS float64) (rate float64, ok bool) {
	if sampleRate <= 0 || !(frameMS > 0) {
		return 0, false
	}
	var audio []ChunkSamples
	for _, c := range chunks {
		if c.Samples > 0 {
			audio = append(audio, c)
		}
	}
	if len(audio) < 2 {
		return 0, false
	}
	samples := 0
	for _, c := range audio[1:] {
		samples += c.Samples
	}
	frames := float64(samples) / float64(sampleRate) * 1000 / frameMS
	wall := (audio[len(audio)-1].TMS - audio[0].TMS) / 1000
	if wall <= 0 {
		return 0, false
	}
	return frames / wall, true
}

// CalibrateOptions are DeriveChunkSchedule's knobs.
type CalibrateOptions struct {
	SteadyFrames int     // steady chunk (25); must be ≥ 2
	FrameMS      float64 // audio per frame (80)
	JitterMS     float64 // delivery jitter to cover (40)
}

// DefaultCalibrateOptions returns steady 25 frames, 80 ms frames, 40 ms jitter.
func DefaultCalibrateOptions() CalibrateOptions {
	return CalibrateOptions{SteadyFrames: DefaultChunkFrames, FrameMS: FrameMS, JitterMS: 40}
}

// Validate checks the options.
func (o CalibrateOptions) Validate() error {
	if o.SteadyFrames < 2 {
		return fmt.Errorf("sched: calibration steady_frames %d, want ≥ 2", o.SteadyFrames)
	}
	if !(o.FrameMS > 0) {
		return fmt.Errorf("sched: calibration frame_ms %v, want > 0", o.FrameMS)
	}
	if o.JitterMS < 0 || math.IsNaN(o.JitterMS) {
		return fmt.Errorf("sched: calibration jitter_ms %v, want ≥ 0", o.JitterMS)
	}
	return nil
}

// Calibration is a chunk schedule derived from one measured request.
type Calibration struct {
	Measured          bool    `json:"measured"`
	FramesPerSecond   float64 `json:"frames_per_second,omitempty"`
	RTF               float64 `json:"rtf,omitempty"`
	ProduceMSPerFrame float64 `json:"produce_ms_per_frame,omitempty"`
	LeadNeededMS      float64 `json:"lead_needed_ms,omitempty"`
	MinFrames         int     `json:"min_frames"`
	MarginMS          float64 `json:"margin_ms"`
	Ramp              []int   `json:"ramp"`
	Adaptive          bool    `json:"adaptive"`
}

// DeriveChunkSchedule turns one measured request into a chunk schedule
// (a chunk of n frames is safe once n × frame ≥ n / rate + margin):
//
//	rtf     = (1000 / frame_ms) / rate      produce = 1000 / rate  (ms per frame)
//	lead    = jitter + max(0, produce − frame_ms) × steady
//	min     = clamp(ceil(lead / frame_ms), 1, steady)
//	margin  = clamp(jitter + produce, 20, 400)
//	ramp    = min, 2·min, 4·min … while < steady, then steady
//	          ([steady/2, steady] when that gives one entry)
//	adaptive = rtf > 0.5
//
// The rate comes from FramesPerSecond at frame_ms, the frame every other
// formula uses. When it cannot be
// measured the result is the default: not measured, adaptive, min 2,
// margin 50, ramp 2, 4, 8, 16, steady.
func DeriveChunkSchedule(chunks []ChunkSamples, sampleRate int, o CalibrateOptions) (Calibration, error) {
	if err := o.Validate(); err != nil {
		return Calibration{}, err
	}
	if sampleRate <= 0 {
		return Calibration{}, fmt.Errorf("sched: calibration sample_rate %d, want > 0", sampleRate)
	}
	rate, ok := FramesPerSecond(chunks, sampleRate, o.FrameMS)
	if !ok || !(rate > 0) {
		return Calibration{Adaptive: true, MinFrames: 2, MarginMS: 50, Ramp: []int{2, 4, 8, 16, o.SteadyFrames}}, nil
	}
	c := Calibration{Measured: true, FramesPerSecond: rate}
	c.RTF = (1000 / o.FrameMS) / rate
	c.ProduceMSPerFrame = 1000 / rate
	c.LeadNeededMS = o.JitterMS + max(0, c.ProduceMSPerFrame-o.FrameMS)*float64(o.SteadyFrames)
	c.MinFrames = int(min(max(math.Ceil(c.LeadNeededMS/o.FrameMS), 1), float64(o.SteadyFrames)))
	c.MarginMS = min(max(o.JitterMS+c.ProduceMSPerFrame, 20), 400)
	for n := c.MinFrames; n < o.SteadyFrames; n *= 2 {
		c.Ramp = append(c.Ramp, n)
	}
	c.Ramp = append(c.Ramp, o.SteadyFrames)
	if len(c.Ramp) < 2 {
		c.Ramp = []int{o.SteadyFrames / 2, o.SteadyFrames}
	}
	c.Adaptive = c.RTF > 0.5
	return c, nil
}
