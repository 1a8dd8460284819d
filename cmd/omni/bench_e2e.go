package main

import (
	"context"
	"fmt"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
	"io"
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

	MsPerFrame float64 `json:"ms_per_frame"` // wall time of the decode steps ÷ frames per stream (host.E2EResult)
	RTF        float64 `json:"rtf"`          // ms_per_frame / 80
	FramesPerS float64 `json:"frames_per_s"` // all streams' frames / wall time of the prefill and decode steps

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
	if err := c.checkShape(); err != nil {
		return err
	}
	if c.Wasm {
		return c.runWasm(g, ctx)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench e2e: "+format+"\n", a...) }
	e, err := c.openEngine(ctx, g, c.Streams, host.Native, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	fl := newFloorMeter(e.threads)
	rep, err := runE2E(ctx, e, fl, c.Streams, c.Frames, c.Warmup, logf)
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	printE2E(g.Stdout, rep)
	return nil
}

// checkShape refuses a bad workload by the flag that breaks its bound.
func (c *benchE2ECmd) checkShape() error {
	return checkBounds("bench e2e",
		bound{"--streams", c.Streams, 1, maxStreams},
		bound{"--frames", c.Frames, 2, maxFrames},
		bound{"--warmup", c.Warmup, 0, maxFrames},
		bound{"--repeat", c.Repeat, 1, maxRepeat})
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

// runE2E runs a warm-up pass then the timed pass of streams × frames
// (host.BenchE2E, the workload and the ms_per_frame of every mode) on e,
// with the floor measured before and after the timed pass. The step stats
// are reset after the warm-up, so the attribution covers the timed pass.
func runE2E(ctx context.Context, e *openedEngine, fl *floorMeter, streams, frames, warmup int, logf func(string, ...any)) (*e2eReport, error) {
	if warmup >= 2 {
		logf("warm-up: %d stream(s) × %d frames", streams, warmup)
		if _, err := host.BenchE2E(ctx, e, streams, warmup, len(demoTextIDs)); err != nil {
			return nil, err
		}
	}
	e.rec.Reset()
	floors := []floorReport{fl.measure()}
	logf("timed: %d stream(s) × %d frames", streams, frames)
	res, err := host.BenchE2E(ctx, e, streams, frames, len(demoTextIDs))
	if err != nil {
		return nil, err
	}
	floors = append(floors, fl.measure())
	fr := medianFloor(floors)
	sum := e.rec.Summaries()
	step := sum["core.step_ms"]
	w := e.Weights()
	r := &e2eReport{
		Model: e.flags.Model, Precision: w.Precision.String(), Threads: e.threads, Level: simd.Active().String(),
		Streams: streams, Frames: frames,
		MsPerFrame: res.MSPerFrame, RTF: res.MSPerFrame / core.FrameMS,
		FramesPerS: float64(streams*frames) / ((res.PrefillMS + res.MSPerFrame*float64(frames)) / 1e3),
		ReadGBps:   fr.ReadGBps, ReadL3GBps: fr.ReadL3GBps,
		Attribution: e.attribution(),
	}
	tb, err := w.Talker.BytesPerToken()
	if err != nil {
		return nil, err
	}
	pb, err := w.Predictor.BytesPerFrame()
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
	for _, s := range res.Ended {
		p := core.Playback(s.Submitted(), s.Arrivals())
		ttfa = append(ttfa, p.TTFAMS)
		start = append(start, p.StartMS)
		r.Stalls += p.Stalls
		r.StallMs += p.StallMS
	}
	r.TTFAMsP50, r.PlaybackStartMsP50 = median(ttfa), median(start)
	return r, nil
}

// median returns the median of v (0 when empty).
func median(v []float64) float64 { return predMedian(v) }
