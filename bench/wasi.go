package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
)

// WASIReport is what "omni bench e2e --wasm --json" prints: the WASI
// figures with the native figure measured in the same run on the same
// weights.
type WASIReport struct {
	Model     string `json:"model"`
	Precision string `json:"precision"`
	Threads   int    `json:"threads"`
	Streams   int    `json:"streams"`
	Frames    int    `json:"frames"`
	Mode      string `json:"mode"` // "wasi"

	MsPerFrame        float64 `json:"ms_per_frame"` // WASI, median over the runs of E2EResult.MSPerFrame (the one definition)
	RTF               float64 `json:"rtf"`
	NativeMsPerFrame  float64 `json:"native_ms_per_frame"`         // median, same run
	Ratio             float64 `json:"wasi_over_native"`            // median of the per-step ratios (lockstep pairs)
	RatioP25          float64 `json:"wasi_over_native_p25"`        // their lower quartile
	RatioP75          float64 `json:"wasi_over_native_p75"`        // their upper quartile
	StepPairs         int     `json:"step_pairs"`                  // paired decode steps behind the ratio
	RatioOfMedians    float64 `json:"wasi_over_native_of_medians"` // ms_per_frame / native_ms_per_frame
	HostCallsPerFrame float64 `json:"host_calls_per_frame"`        // guest→host calls per decode step
	HostMsPerFrame    float64 `json:"host_ms_per_frame"`           // of ms_per_frame, inside host functions (kernels)
	// The guest's own split of its steps (all runs, warm-up included), per
	// step: wall ms inside Step, of which inside the model (graph and host
	// calls, sampling excluded), and the ms draining and encoding events.
	GuestStepMs   float64 `json:"guest_step_ms"`
	GuestModelMs  float64 `json:"guest_model_ms"`
	GuestEncodeMs float64 `json:"guest_encode_ms"`
	GuestPickMs   float64 `json:"guest_pick_ms"` // of guest_step_ms, the code predictor's sampling

	Runs []E2EResult `json:"runs"`
}

// WASIOptions is one native-against-WASI measurement.
type WASIOptions struct {
	Model   string // the model spec, as reported
	Streams int
	Frames  int // frames per stream, ≥ 2
	TextLen int // text ids per request
	Warmup  int // frames of a warm-up pass per mode (none below 2)
	Repeat  int // timed repetitions, both modes in lockstep
}

// WASI runs CompareE2E on o (loaded once for both modes) and reduces
// its runs: medians of each mode's ms_per_frame, the median and quartiles
// of the lockstep step ratios.
func WASI(ctx context.Context, ho host.Options, o WASIOptions) (*WASIReport, error) {
	cmp, err := CompareE2E(ctx, ho, o.Streams, o.Frames, o.TextLen, o.Warmup, o.Repeat)
	if err != nil {
		return nil, err
	}
	field := func(rs []E2EResult, f func(E2EResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return Median(v)
	}
	ms := func(r E2EResult) float64 { return r.MSPerFrame }
	r := &WASIReport{
		Model: o.Model, Precision: ho.Precision.String(), Threads: ho.Threads, Streams: o.Streams, Frames: o.Frames, Mode: "wasi",
		MsPerFrame: field(cmp.WASI, ms), NativeMsPerFrame: field(cmp.Native, ms), StepPairs: len(cmp.StepRatios),
		HostCallsPerFrame: field(cmp.WASI, func(r E2EResult) float64 { return r.HostCallsPerFrame }),
		HostMsPerFrame:    field(cmp.WASI, func(r E2EResult) float64 { return r.HostMSPerFrame }),
		Runs:              append(append([]E2EResult(nil), cmp.Native...), cmp.WASI...),
	}
	r.RTF = r.MsPerFrame / core.FrameMS
	r.RatioOfMedians = r.MsPerFrame / r.NativeMsPerFrame
	if len(cmp.StepRatios) > 0 {
		s := sorted(cmp.StepRatios)
		r.Ratio, r.RatioP25, r.RatioP75 = Quantile(s, 0.5), Quantile(s, 0.25), Quantile(s, 0.75)
	}
	if n := float64(cmp.Guest.GuestSteps); n > 0 {
		r.GuestStepMs, r.GuestModelMs, r.GuestEncodeMs, r.GuestPickMs = cmp.Guest.StepMS/n, cmp.Guest.ModelMS/n, cmp.Guest.EncodeMS/n, cmp.Guest.PickMS/n
	}
	return r, nil
}

// WriteText writes the report as text.
func (r *WASIReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "e2e %s %s, %d stream(s) × %d frames, mode wasi\n", r.Model, r.Precision, r.Streams, r.Frames)
	fmt.Fprintf(w, "  %.2f ms/frame (RTF %.3f); native %.2f ms/frame in the same run; WASI/native %.3f (median of %d lockstep step pairs, quartiles %.3f–%.3f; of the run medians %.3f)\n", r.MsPerFrame, r.RTF, r.NativeMsPerFrame, r.Ratio, r.StepPairs, r.RatioP25, r.RatioP75, r.RatioOfMedians)
	fmt.Fprintf(w, "  %.0f host calls/frame, %.2f ms/frame inside host functions\n", r.HostCallsPerFrame, r.HostMsPerFrame)
	fmt.Fprintf(w, "  guest per step: %.2f ms in Step, %.2f ms of it in the model, %.2f ms in the code predictor's sampling; %.2f ms encoding events\n", r.GuestStepMs, r.GuestModelMs, r.GuestPickMs, r.GuestEncodeMs)
}
