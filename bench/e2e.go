package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
)

// E2EReport is what "omni bench e2e --json" prints. ms_per_frame is the
// one definition (E2EResult.MSPerFrame): the wall time of the decode
// steps divided by the frames each stream made, every step making one
// frame of every stream.
type E2EReport struct {
	Model     string `json:"model"`
	Precision string `json:"precision"`
	Threads   int    `json:"threads"`
	Level     string `json:"level"`
	Streams   int    `json:"streams"`
	Frames    int    `json:"frames"`

	MsPerFrame float64 `json:"ms_per_frame"` // wall time of the decode steps ÷ frames per stream (E2EResult)
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

// E2EOptions is one end-to-end measurement: the workload and what the
// report names.
type E2EOptions struct {
	Model   string // the model spec, as reported
	Threads int    // the kernel threads, as reported
	Streams int    // streams submitted together
	Frames  int    // frames per stream (EOS masked until then), ≥ 2
	Warmup  int    // frames of a warm-up pass (none below 2)
	TextLen int    // text ids per request
}

// E2E runs a warm-up pass, then the timed pass of RunE2E's workload
// on e, with the floor measured by fl before and after the timed pass. rec
// is the engine's step-stats recorder (reset after the warm-up, so the
// attribution covers the timed pass); nil leaves the attribution and the
// overhead empty.
func E2E(ctx context.Context, e host.Engine, rec *stats.Recorder, fl *FloorMeter, o E2EOptions, logf func(string, ...any)) (*E2EReport, error) {
	if o.Warmup >= 2 {
		logf("warm-up: %d stream(s) × %d frames", o.Streams, o.Warmup)
		if _, err := RunE2E(ctx, e, o.Streams, o.Warmup, o.TextLen); err != nil {
			return nil, err
		}
	}
	rec.Reset()
	before := fl.Measure()
	logf("timed: %d stream(s) × %d frames", o.Streams, o.Frames)
	res, err := RunE2E(ctx, e, o.Streams, o.Frames, o.TextLen)
	if err != nil {
		return nil, err
	}
	fr := MedianFloor(before, fl.Measure())
	w := host.WeightsOf(e)
	if w == nil {
		return nil, fmt.Errorf("bench: the engine shows no weights (pass the engine host.Open returned)")
	}
	r := &E2EReport{
		Model: o.Model, Precision: w.Precision.String(), Threads: o.Threads, Level: simd.Active().String(),
		Streams: o.Streams, Frames: o.Frames,
		MsPerFrame: res.MSPerFrame, RTF: res.MSPerFrame / core.FrameMS,
		FramesPerS: float64(o.Streams*o.Frames) / ((res.PrefillMS + res.MSPerFrame*float64(o.Frames)) / 1e3),
		ReadGBps:   fr.ReadGBps, ReadL3GBps: fr.ReadL3GBps,
	}
	tb, pb, err := weightBytes(w)
	if err != nil {
		return nil, err
	}
	r.BytesPerFrame = tb + pb
	r.FloorMsPerFrame = FloorMS(r.BytesPerFrame, fr.ReadGBps)
	r.Efficiency = Efficiency(r.FloorMsPerFrame, r.MsPerFrame)
	r.FloorMixedMsPerFrame = MixedFloorMS(tb, pb, core.Codebooks-1, fr.ReadGBps, fr.ReadL3GBps)
	r.EfficiencyMixed = Efficiency(r.FloorMixedMsPerFrame, r.MsPerFrame)
	if rec != nil {
		sum := rec.Summaries()
		r.Attribution = stats.Attribution(stats.Roles{"engine": sum}, stats.FrameBudgetMS)
		if step := sum["core.step_ms"]; step.Count > 0 {
			model := sum["model.forward_ms"].SumMS + sum["model.prefill_ms"].SumMS + sum["model.sample_ms"].SumMS + sum["model.talker_mtp_ms"].SumMS
			r.OverheadMsPerFrame = max(0, step.SumMS-model) / float64(step.Count)
			r.OverheadShare = r.OverheadMsPerFrame / core.FrameMS
		}
	}
	var ttfa, start []float64
	for _, s := range res.Ended {
		p := core.Playback(s.Submitted(), s.Arrivals())
		ttfa = append(ttfa, p.TTFAMS)
		start = append(start, p.StartMS)
		r.Stalls += p.Stalls
		r.StallMs += p.StallMS
	}
	r.TTFAMsP50, r.PlaybackStartMsP50 = Median(ttfa), Median(start)
	return r, nil
}

// WriteText writes the report as text and the attribution table.
func (r *E2EReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "e2e %s %s, %d stream(s) × %d frames, %d thread(s) (%s)\n", r.Model, r.Precision, r.Streams, r.Frames, r.Threads, r.Level)
	fmt.Fprintf(w, "  %.2f ms/frame (RTF %.3f), %.2f frames/s aggregate\n", r.MsPerFrame, r.RTF, r.FramesPerS)
	fmt.Fprintf(w, "  TTFA p50 %.0f ms, playback start p50 %.0f ms, %d stall(s) (%.0f ms)\n", r.TTFAMsP50, r.PlaybackStartMsP50, r.Stalls, r.StallMs)
	fmt.Fprintf(w, "  floor %.2f ms/frame (%d MB at %.1f GB/s): efficiency %.2f; mixed floor (predictor from L3 at %.1f GB/s) %.2f ms: %.2f\n",
		r.FloorMsPerFrame, r.BytesPerFrame>>20, r.ReadGBps, r.Efficiency, r.ReadL3GBps, r.FloorMixedMsPerFrame, r.EfficiencyMixed)
	fmt.Fprintf(w, "  overhead %.3f ms/frame = %.2f%% of 80 ms\n", r.OverheadMsPerFrame, 100*r.OverheadShare)
	fmt.Fprint(w, stats.FormatTable(r.Attribution, stats.FrameBudgetMS))
}

// weightBytes returns the weight bytes one decode step reads: the talker's
// per token and the predictor's per frame (its 15 passes).
func weightBytes(w *predictor.Weights) (talker, pred int64, err error) {
	if talker, err = w.Talker.BytesPerToken(); err != nil {
		return 0, 0, err
	}
	if pred, err = w.Predictor.BytesPerFrame(); err != nil {
		return 0, 0, err
	}
	return talker, pred, nil
}
