package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
)

// wasmE2EReport is what "omni bench e2e --wasm --json" prints: the WASI
// figures with the native figure measured in the same run on the same
// weights.
type wasmE2EReport struct {
	Model     string `json:"model"`
	Precision string `json:"precision"`
	Threads   int    `json:"threads"`
	Streams   int    `json:"streams"`
	Frames    int    `json:"frames"`
	Mode      string `json:"mode"` // "wasi"

	MsPerFrame        float64 `json:"ms_per_frame"` // median over the runs, WASI
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

	Runs []host.E2EResult `json:"runs"`
}

// runWasm is "omni bench e2e --wasm".
func (c *benchE2ECmd) runWasm(g *Globals, ctx context.Context) error {
	o, done, err := c.options(g, c.Streams)
	if err != nil {
		return err
	}
	defer done()
	fmt.Fprintf(g.Stderr, "bench e2e: %s in %s, %d stream(s) × %d frames, native and WASI in lockstep, %d runs each\n", c.Model, o.Precision, c.Streams, c.Frames, c.Repeat)
	cmp, err := host.CompareE2E(ctx, o, c.Streams, c.Frames, len(demoTextIDs), c.Warmup, c.Repeat)
	if err != nil {
		return err
	}
	threads := o.Threads
	if threads <= 0 {
		threads = simd.DefaultThreads()
	}
	r := wasmE2EReport{
		Model: c.Model, Precision: o.Precision.String(), Threads: threads, Streams: c.Streams, Frames: c.Frames, Mode: "wasi",
		MsPerFrame: cmp.WASIMS, RTF: cmp.WASIMS / core.FrameMS, NativeMsPerFrame: cmp.NativeMS, Ratio: cmp.Ratio, RatioP25: cmp.RatioP25, RatioP75: cmp.RatioP75, StepPairs: len(cmp.StepRatios), RatioOfMedians: cmp.RatioOfMedians,
		HostCallsPerFrame: cmp.HostCallsPerFrame,
		Runs:              append(append([]host.E2EResult(nil), cmp.Native...), cmp.WASI...),
	}
	var hm []float64
	for _, w := range cmp.WASI {
		hm = append(hm, w.HostMSPerFrame)
	}
	r.HostMsPerFrame = median(hm)
	if n := float64(cmp.Guest.GuestSteps); n > 0 {
		r.GuestStepMs, r.GuestModelMs, r.GuestEncodeMs, r.GuestPickMs = cmp.Guest.StepMS/n, cmp.Guest.ModelMS/n, cmp.Guest.EncodeMS/n, cmp.Guest.PickMS/n
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(g.Stdout, "e2e %s %s, %d stream(s) × %d frames, mode wasi\n", r.Model, r.Precision, r.Streams, r.Frames)
	fmt.Fprintf(g.Stdout, "  %.2f ms/frame (RTF %.3f); native %.2f ms/frame in the same run; WASI/native %.3f (median of %d lockstep step pairs, quartiles %.3f–%.3f; of the run medians %.3f)\n", r.MsPerFrame, r.RTF, r.NativeMsPerFrame, r.Ratio, r.StepPairs, r.RatioP25, r.RatioP75, r.RatioOfMedians)
	fmt.Fprintf(g.Stdout, "  %.0f host calls/frame, %.2f ms/frame inside host functions\n", r.HostCallsPerFrame, r.HostMsPerFrame)
	fmt.Fprintf(g.Stdout, "  guest per step: %.2f ms in Step, %.2f ms of it in the model, %.2f ms in the code predictor's sampling; %.2f ms encoding events\n", r.GuestStepMs, r.GuestModelMs, r.GuestPickMs, r.GuestEncodeMs)
	return nil
}
