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
}

// hostTimer is implemented by engines that account time in host functions.
type hostTimer interface{ hostTime() time.Duration }

// BenchE2E submits streams seeded requests of textLen text ids that
// generate exactly frames frames each (EOS masked until then), steps e until
// idle and reports the time per frame. The first step (admission and
// prefill of every request) is timed apart.
func BenchE2E(ctx context.Context, e Engine, streams, frames, textLen int) (E2EResult, error) {
	res := E2EResult{Mode: e.Mode().String(), Streams: streams, Frames: frames}
	if streams < 1 || frames < 2 || textLen < 1 {
		return res, fmt.Errorf("host: bench of %d streams, %d frames, %d text ids", streams, frames, textLen)
	}
	var ss []Stream
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
			return res, err
		}
		ss = append(ss, s)
	}
	t0 := time.Now()
	busy, err := e.Step()
	if err != nil {
		return res, err
	}
	res.PrefillMS = float64(time.Since(t0)) / 1e6
	res.Steps = 1
	calls0 := e.HostCalls()
	var ht0 time.Duration
	ht, timed := e.(hostTimer)
	if timed {
		ht0 = ht.hostTime()
	}
	t1 := time.Now()
	for busy {
		if busy, err = e.Step(); err != nil {
			return res, err
		}
		res.Steps++
	}
	decode := time.Since(t1)
	for _, s := range ss {
		end, err := s.Wait(ctx)
		if err != nil {
			return res, err
		}
		if end.Frames != frames {
			return res, fmt.Errorf("host: bench stream %s ended %v after %d frames, want %d", s.ID(), end.Reason, end.Frames, frames)
		}
	}
	res.MSPerFrame = float64(decode) / 1e6 / float64(frames)
	res.HostCallsPerFrame = float64(e.HostCalls()-calls0) / float64(res.Steps-1)
	if timed {
		res.HostMSPerFrame = float64(ht.hostTime()-ht0) / 1e6 / float64(frames)
	}
	return res, nil
}
