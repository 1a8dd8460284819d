package host

import (
	"context"
	"fmt"
	"time"

	"github.com/omni-tts/omni/core"
)

// E2EResult is one end-to-end measurement: streams requests generating
// frames frames each, stepped to completion.
type E2EResult struct {
	Mode    string `json:"mode"`
	Streams int    `json:"streams"`
	Frames  int    `json:"frames"` // frames per stream
	Steps   uint64 `json:"steps"`  // engine steps run (prefill steps included)
	// MSPerFrame is the wall time of the decode steps divided by the
	// frames each stream generated: one frame of every stream per step.
	MSPerFrame float64 `json:"ms_per_frame"`
	// PrefillMS is the wall time of the first step (every prompt).
	PrefillMS float64 `json:"prefill_ms"`
	// HostCallsPerFrame is the guest→host calls per decode step (0 native).
	HostCallsPerFrame float64 `json:"host_calls_per_frame"`
	// HostMSPerFrame is the part of MSPerFrame spent inside host functions
	// (the kernels); the rest is the control core in wasm (0 native).
	HostMSPerFrame float64 `json:"host_ms_per_frame"`
	// Streams are the run's streams, ended (their arrivals give the
	// playback figures).
	Ended []*core.Stream `json:"-"`
}

// hostTimer is implemented by engines that account time in host functions.
type hostTimer interface{ hostTime() time.Duration }

// BenchE2E submits streams seeded requests of textLen text ids that
// generate exactly frames frames each (EOS masked until then), steps e until
// idle and reports the time per frame. The first step (admission and
// prefill of every request) is timed apart.
func BenchE2E(ctx context.Context, e Engine, streams, frames, textLen int) (E2EResult, error) {
	b, err := startBench(ctx, e, streams, frames, textLen)
	if err != nil {
		return b.res, err
	}
	for b.busy {
		if _, err := b.step(); err != nil {
			return b.res, err
		}
	}
	return b.finish(ctx)
}

// benchRun is one BenchE2E workload in progress: its streams submitted and
// prefilled, stepped one decode step at a time.
type benchRun struct {
	e      Engine
	res    E2EResult
	ss     []*core.Stream
	busy   bool
	calls0 uint64
	ht0    time.Duration
	decode time.Duration // wall time of the decode steps so far
}

// startBench validates the shape, submits the seeded requests and runs the
// first step (admission and prefill), timed apart.
func startBench(ctx context.Context, e Engine, streams, frames, textLen int) (*benchRun, error) {
	b := &benchRun{e: e, res: E2EResult{Mode: e.Mode().String(), Streams: streams, Frames: frames}}
	if streams < 1 || frames < 2 || textLen < 1 {
		return b, fmt.Errorf("host: bench of %d streams, %d frames, %d text ids", streams, frames, textLen)
	}
	for i := 0; i < streams; i++ {
		text := make([]int32, textLen)
		for j := range text {
			text[j] = int32(1 + (i*31+j*7)%97)
		}
		r := core.NewRequest(text)
		r.ID = fmt.Sprintf("bench%d", i)
		r.Talker.Seed = core.Seed(int64(1000 + i))
		r.Predictor.Seed = core.Seed(int64(2000 + i))
		r.Talker.MinTokens = frames
		r.MaxFrames = frames
		s, err := e.Submit(ctx, r)
		if err != nil {
			return b, err
		}
		b.ss = append(b.ss, s)
	}
	t0 := time.Now()
	busy, err := e.Step()
	if err != nil {
		return b, err
	}
	b.res.PrefillMS = float64(time.Since(t0)) / 1e6
	b.res.Steps = 1
	b.busy = busy
	b.calls0 = HostCallsOf(e)
	if ht, ok := e.(hostTimer); ok {
		b.ht0 = ht.hostTime()
	}
	return b, nil
}

// step runs one decode step and returns its wall time.
func (b *benchRun) step() (time.Duration, error) {
	t := time.Now()
	busy, err := b.e.Step()
	d := time.Since(t)
	if err != nil {
		return d, err
	}
	b.busy = busy
	b.decode += d
	b.res.Steps++
	return d, nil
}

// finish checks that every stream generated exactly its frames and fills
// in the per-frame figures.
func (b *benchRun) finish(ctx context.Context) (E2EResult, error) {
	frames := b.res.Frames
	for _, s := range b.ss {
		end, err := s.Wait(ctx)
		if err != nil {
			return b.res, err
		}
		if end.Frames != frames {
			return b.res, fmt.Errorf("host: bench stream %s ended %v after %d frames, want %d", s.ID(), end.Reason, end.Frames, frames)
		}
	}
	b.res.MSPerFrame = float64(b.decode) / 1e6 / float64(frames)
	b.res.Ended = b.ss
	if b.res.Steps > 1 {
		b.res.HostCallsPerFrame = float64(HostCallsOf(b.e)-b.calls0) / float64(b.res.Steps-1)
	}
	if ht, ok := b.e.(hostTimer); ok {
		b.res.HostMSPerFrame = float64(ht.hostTime()-b.ht0) / 1e6 / float64(frames)
	}
	return b.res, nil
}
