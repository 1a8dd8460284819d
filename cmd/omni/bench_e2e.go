package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
)

// benchE2ECmd is "omni bench e2e": N streams through the whole engine,
// with the weight-read floor measured in the same run.
type benchE2ECmd struct {
	engineFlags
	Streams int  `default:"1" help:"Streams submitted together (${default})."`
	Frames  int  `default:"50" help:"Frames per stream; EOS is masked so every stream runs all of them (${default})."`
	Warmup  int  `default:"4" help:"Frames of a warm-up pass before the timed run (${default})."`
	Repeat  int  `default:"5" help:"With --wasm: timed repetitions, native and WASI stepped in lockstep (${default})."`
	JSON    bool `name:"json" help:"Print one JSON object on stdout."`
	Wasm    bool `help:"Run the engine as the WASI guest (wazero), with the native figure measured in the same run."`
}

// e2eReport is what "omni bench e2e --json" prints.
type e2eReport struct {
	Model     string `json:"model"`
	Precision string `json:"precision"`
	Threads   int    `json:"threads"`
	Level     string `json:"level"`
	Streams   int    `json:"streams"`
	Frames    int    `json:"frames"`

	MsPerFrame float64 `json:"ms_per_frame"` // median decode step (one frame for every stream)
	RTF        float64 `json:"rtf"`          // ms_per_frame / 80
	FramesPerS float64 `json:"frames_per_s"` // all streams' frames / wall time from submit to the last end

	TTFAMsP50          float64 `json:"ttfa_ms_p50"`
	PlaybackStartMsP50 float64 `json:"playback_start_ms_p50"`
	Stalls             int     `json:"stalls"`
	StallMs            float64 `json:"stall_ms"`

	BytesPerFrame        int64   `json:"bytes_per_frame"`    // weights one decode step reads (talker token + 15 predictor passes)
	ReadGBps             float64 `json:"read_gbps"`          // DRAM streaming read, measured before and after
	ReadL3GBps           float64 `json:"read_l3_gbps"`       // L3-resident read, same
	FloorMsPerFrame      float64 `json:"floor_ms_per_frame"` // bytes_per_frame at read_gbps
	Efficiency           float64 `json:"efficiency"`         // floor / ms_per_frame
	FloorMixedMsPerFrame float64 `json:"floor_mixed_ms_per_frame"`
	EfficiencyMixed      float64 `json:"efficiency_mixed"`

	OverheadMsPerFrame float64     `json:"overhead_ms_per_frame"` // core.step_ms − forward, prefill, sampling and predictor, per step
	OverheadShare      float64     `json:"overhead_share"`        // of the 80 ms frame
	Attribution        []stats.Row `json:"attribution"`
}

// Run implements "omni bench e2e".
func (c *benchE2ECmd) Run(g *Globals, ctx context.Context) error {
	if c.Streams < 1 || c.Frames < 2 || c.Warmup < 0 || c.Repeat < 1 {
		return fmt.Errorf("bench e2e: --streams %d must be >= 1, --frames %d >= 2, --warmup %d >= 0, --repeat %d >= 1", c.Streams, c.Frames, c.Warmup, c.Repeat)
	}
	if c.Wasm {
		return c.runWasm(g, ctx)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench e2e: "+format+"\n", a...) }
	lm, err := loadModel(g, &c.engineFlags, c.Streams, logf)
	if err != nil {
		return err
	}
	defer lm.close()
	fl := newFloorMeter(lm.threads)
	rep, err := runE2E(ctx, lm, fl, c.Streams, c.Frames, c.Warmup, logf)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printE2E(g.Stdout, rep)
	return nil
}

// printE2E writes the report as text and the attribution table.
func printE2E(w io.Writer, r *e2eReport) {
	fmt.Fprintf(w, "e2e %s %s, %d stream(s) × %d frames, %d thread(s) (%s)\n", r.Model, r.Precision, r.Streams, r.Frames, r.Threads, r.Level)
	fmt.Fprintf(w, "  %.2f ms/frame (RTF %.3f), %.2f frames/s aggregate\n", r.MsPerFrame, r.RTF, r.FramesPerS)
	fmt.Fprintf(w, "  TTFA p50 %.0f ms, playback start p50 %.0f ms, %d stall(s) (%.0f ms)\n", r.TTFAMsP50, r.PlaybackStartMsP50, r.Stalls, r.StallMs)
	fmt.Fprintf(w, "  floor %.2f ms/frame (%d MB at %.1f GB/s): efficiency %.2f; mixed floor (predictor from L3 at %.1f GB/s) %.2f ms: %.2f\n",
		r.FloorMsPerFrame, r.BytesPerFrame>>20, r.ReadGBps, r.Efficiency, r.ReadL3GBps, r.FloorMixedMsPerFrame, r.EfficiencyMixed)
	fmt.Fprintf(w, "  overhead %.3f ms/frame = %.2f%% of 80 ms\n", r.OverheadMsPerFrame, 100*r.OverheadShare)
	fmt.Fprint(w, stats.FormatTable(r.Attribution, stats.FrameBudgetMS))
}

// e2eRequest is stream i's request: the demo text, seeded, EOS masked for
// all frames.
func e2eRequest(i, frames int) core.Request {
	r := core.NewRequest(demoTextIDs)
	r.ID = fmt.Sprintf("s%d", i)
	r.MaxFrames = frames
	r.Talker.MinTokens = frames
	r.Talker.Seed = core.Seed(int64(1000 + i))
	r.Predictor.Seed = core.Seed(int64(2000 + i))
	return r
}

// runE2E runs a warm-up pass then the timed pass of streams × frames on a
// fresh engine, with the floor measured before and after.
func runE2E(ctx context.Context, lm *loadedModel, fl *floorMeter, streams, frames, warmup int, logf func(string, ...any)) (*e2eReport, error) {
	if warmup > 0 {
		logf("warm-up: %d stream(s) × %d frames", streams, warmup)
		ee, _, err := e2ePass(ctx, lm, streams, warmup)
		if err != nil {
			return nil, err
		}
		ee.close()
	}
	floors := []floorReport{fl.measure()}
	logf("timed: %d stream(s) × %d frames", streams, frames)
	le, wall, err := e2ePass(ctx, lm, streams, frames)
	if err != nil {
		return nil, err
	}
	defer le.close()
	floors = append(floors, fl.measure())
	fr := medianFloor(floors)
	sum := le.rec.Summaries()
	step := sum["core.step_ms"]
	r := &e2eReport{
		Model: lm.flags.Model, Precision: lm.weights.Precision.String(), Threads: lm.threads, Level: simd.Active().String(),
		Streams: streams, Frames: frames,
		MsPerFrame: step.P50MS, RTF: step.P50MS / core.FrameMS,
		FramesPerS: float64(streams*frames) / wall.Seconds(),
		ReadGBps:   fr.ReadGBps, ReadL3GBps: fr.ReadL3GBps,
		Attribution: le.attribution(),
	}
	tb, err := lm.weights.Talker.BytesPerToken()
	if err != nil {
		return nil, err
	}
	pb, err := lm.weights.Predictor.BytesPerFrame()
	if err != nil {
		return nil, err
	}
	r.BytesPerFrame = tb + pb
	r.FloorMsPerFrame = float64(r.BytesPerFrame) / (fr.ReadGBps * 1e9) * 1e3
	r.Efficiency = r.FloorMsPerFrame / r.MsPerFrame
	// The predictor's per-pass weights fit the L3 here: after the talker's
	// pass evicts them, the first pass streams from DRAM, the other 14 hit L3.
	pass := float64(pb) / 15
	r.FloorMixedMsPerFrame = ((float64(tb)+pass)/(fr.ReadGBps*1e9) + 14*pass/(fr.ReadL3GBps*1e9)) * 1e3
	r.EfficiencyMixed = r.FloorMixedMsPerFrame / r.MsPerFrame
	if step.Count > 0 {
		model := sum["model.forward_ms"].SumMS + sum["model.prefill_ms"].SumMS + sum["model.sample_ms"].SumMS + sum["model.talker_mtp_ms"].SumMS
		r.OverheadMsPerFrame = max(0, step.SumMS-model) / float64(step.Count)
		r.OverheadShare = r.OverheadMsPerFrame / core.FrameMS
	}
	var ttfa, start []float64
	for _, s := range le.streams {
		p := core.Playback(s.Submitted(), s.Arrivals())
		ttfa = append(ttfa, p.TTFAMS)
		start = append(start, p.StartMS)
		r.Stalls += p.Stalls
		r.StallMs += p.StallMS
	}
	r.TTFAMsP50, r.PlaybackStartMsP50 = median(ttfa), median(start)
	return r, nil
}

// e2ePass runs streams × frames on a fresh engine and returns it (to be
// closed by the caller) with the wall time from the first submit to the
// last stream's end.
func e2ePass(ctx context.Context, lm *loadedModel, streams, frames int) (*e2eEngine, time.Duration, error) {
	le, err := lm.start()
	if err != nil {
		return nil, 0, err
	}
	ee := &e2eEngine{loadedEngine: le}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- le.Run(runCtx) }()
	t0 := time.Now()
	for i := 0; i < streams; i++ {
		s, err := le.Submit(ctx, e2eRequest(i, frames))
		if err != nil {
			stop()
			<-done
			le.close()
			return nil, 0, err
		}
		ee.streams = append(ee.streams, s)
	}
	var wg sync.WaitGroup
	errs := make([]error, streams)
	for i, s := range ee.streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			end, err := s.Wait(ctx)
			if err == nil && end.Reason != core.EndLength {
				err = fmt.Errorf("bench e2e: stream %s ended by %s after %d frames: %v", s.ID(), end.Reason, end.Frames, end.Err)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	wall := time.Since(t0)
	stop()
	<-done
	for _, err := range errs {
		if err != nil {
			le.close()
			return nil, 0, err
		}
	}
	return ee, wall, nil
}

// e2eEngine is an engine with the streams of one pass.
type e2eEngine struct {
	*loadedEngine
	streams []*core.Stream
}

// median returns the median of v (0 when empty).
func median(v []float64) float64 { return predMedian(v) }
