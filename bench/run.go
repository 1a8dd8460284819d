package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/wasm/abi"
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

// RunE2E submits streams seeded requests of textLen text ids that
// generate exactly frames frames each (EOS masked until then), steps e until
// idle and reports the time per frame. The first step (admission and
// prefill of every request) is timed apart.
func RunE2E(ctx context.Context, e host.Engine, streams, frames, textLen int) (E2EResult, error) {
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

// benchRun is one RunE2E workload in progress: its streams submitted and
// prefilled, stepped one decode step at a time.
type benchRun struct {
	e      host.Engine
	res    E2EResult
	ss     []*core.Stream
	busy   bool
	calls0 uint64
	ht0    time.Duration
	decode time.Duration // wall time of the decode steps so far
}

// startBench validates the shape, submits the seeded requests and runs the
// first step (admission and prefill), timed apart.
func startBench(ctx context.Context, e host.Engine, streams, frames, textLen int) (*benchRun, error) {
	b := &benchRun{e: e, res: E2EResult{Mode: e.Mode().String(), Streams: streams, Frames: frames}}
	if streams < 1 || frames < 2 || textLen < 1 {
		return b, fmt.Errorf("bench: e2e workload of %d streams, %d frames, %d text ids", streams, frames, textLen)
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
	b.calls0 = host.HostCallsOf(e)
	b.ht0 = host.HostTimeOf(e)
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
			return b.res, fmt.Errorf("bench: e2e stream %s ended %v after %d frames, want %d", s.ID(), end.Reason, end.Frames, frames)
		}
	}
	b.res.MSPerFrame = float64(b.decode) / 1e6 / float64(frames)
	b.res.Ended = b.ss
	if b.res.Steps > 1 {
		b.res.HostCallsPerFrame = float64(host.HostCallsOf(b.e)-b.calls0) / float64(b.res.Steps-1)
	}
	if b.res.Mode == host.WASI.String() {
		b.res.HostMSPerFrame = float64(host.HostTimeOf(b.e)-b.ht0) / 1e6 / float64(frames)
	}
	return b.res, nil
}

// E2EComparison holds the runs of CompareE2E (WASI reduces them to medians
// and quartiles).
type E2EComparison struct {
	Native, WASI []E2EResult
	// StepRatios holds, for every decode step of every repetition, the
	// WASI step's wall time over the native one's: the two engines run
	// the same seeded workload in lockstep, one step each in turn (which
	// goes first alternates), so a passing load on the machine falls on
	// both halves of a pair.
	StepRatios []float64
	// Guest is the guest's own accounting over all its runs (step, model
	// and encode ms).
	Guest abi.Load
}

// CompareE2E loads o's model once (host.OpenPair) and measures the same
// seeded workload (RunE2E's) reps times in both modes at once, after one
// warm-up pass of warmup frames (none below 2): each repetition submits the
// workload to both engines and steps them in lockstep, one decode step each
// in turn, so that both modes share the weights, the kernels and the
// machine's momentary load, and every step of one is paired with the same
// step of the other.
func CompareE2E(ctx context.Context, o host.Options, streams, frames, textLen, warmup, reps int) (*E2EComparison, error) {
	if reps < 1 {
		return nil, fmt.Errorf("bench: compare with %d repetitions", reps)
	}
	o.MaxBatch = streams
	p, err := host.OpenPair(ctx, o)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	ne, we := p.Native, p.WASI
	c := &E2EComparison{}
	if warmup >= 2 {
		for _, e := range []host.Engine{ne, we} {
			if _, err := RunE2E(ctx, e, streams, warmup, textLen); err != nil {
				return nil, fmt.Errorf("bench: %v warm-up: %w", e.Mode(), err)
			}
		}
	}
	for i := 0; i < reps; i++ {
		n, w, err := benchPaired(ctx, ne, we, streams, frames, textLen, c)
		if err != nil {
			return nil, fmt.Errorf("bench: run %d: %w", i, err)
		}
		c.Native = append(c.Native, n)
		c.WASI = append(c.WASI, w)
	}
	if g, err := p.GuestLoad(); err == nil {
		c.Guest = g
	}
	return c, nil
}

// benchPaired runs one repetition of the workload on both engines in
// lockstep and appends the per-step WASI / native ratios to c.StepRatios.
// Which engine steps first alternates from step to step. A step one engine runs after the other has gone idle is timed but
// unpaired (the workloads are identical, so it does not happen when both
// are correct).
func benchPaired(ctx context.Context, ne, we host.Engine, streams, frames, textLen int, c *E2EComparison) (n, w E2EResult, err error) {
	nb, err := startBench(ctx, ne, streams, frames, textLen)
	if err != nil {
		return nb.res, w, fmt.Errorf("%v: %w", ne.Mode(), err)
	}
	wb, err := startBench(ctx, we, streams, frames, textLen)
	if err != nil {
		return n, wb.res, fmt.Errorf("%v: %w", we.Mode(), err)
	}
	for k := 0; nb.busy || wb.busy; k++ {
		order := [2]*benchRun{nb, wb}
		if k%2 == 1 {
			order = [2]*benchRun{wb, nb}
		}
		var d [2]time.Duration
		for i, b := range order {
			if !b.busy {
				continue
			}
			if d[i], err = b.step(); err != nil {
				return nb.res, wb.res, fmt.Errorf("%v: %w", b.e.Mode(), err)
			}
		}
		if d[0] > 0 && d[1] > 0 {
			dn, dw := d[0], d[1]
			if k%2 == 1 {
				dn, dw = dw, dn
			}
			c.StepRatios = append(c.StepRatios, float64(dw)/float64(dn))
		}
	}
	if n, err = nb.finish(ctx); err != nil {
		return n, w, fmt.Errorf("%v: %w", ne.Mode(), err)
	}
	if w, err = wb.finish(ctx); err != nil {
		return n, w, fmt.Errorf("%v: %w", we.Mode(), err)
	}
	return n, w, nil
}
