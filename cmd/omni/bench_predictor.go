package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/predictor"
)

// benchPredictorCmd times the code predictor's 15 sub-steps per frame
// against the weight-read floor measured in the same run.
type benchPredictorCmd struct {
	Model     string `default:"synth:0.6b" help:"Model: a checkpoint directory or synth:SIZE[+outliers] (${default})."`
	Precision string `default:"int8" enum:"fp32,int8,int8-fp32head,int8-pertensor,int4,int4-mlp,int4-gateup,int4-late" help:"Matrix precision: ${enum} (${default})."`
	Batch     int    `default:"1" help:"Streams per pass (${default})."`
	Frames    int    `default:"20" help:"Timed frames, after the warm-up frames (${default})."`
	Warmup    int    `default:"8" help:"Untimed warm-up frames: the Go runtime starts the OS threads the kernel pool's wake-ups need during the first few, and those allocations are not the predictor's (${default})."`
	Path      string `default:"incremental" enum:"incremental,full" help:"Sub-step path: ${enum} (${default})."`
	Parity    bool   `help:"Also run the fp32 reference beside it and report parity (timing then includes the reference)."`
	JSON      bool   `name:"json" help:"Print one JSON object on stdout."`
}

// Run implements "omni bench predictor".
func (c *benchPredictorCmd) Run(g *Globals, _ context.Context) error {
	if err := checkBounds("bench predictor",
		bound{"--batch", c.Batch, 1, maxStreams},
		bound{"--frames", c.Frames, 1, maxFrames},
		bound{"--warmup", c.Warmup, 0, maxFrames}); err != nil {
		return err
	}
	prec, err := predictor.ParsePrecision(c.Precision)
	if err != nil {
		return err
	}
	path, err := predictor.ParsePath(c.Path)
	if err != nil {
		return err
	}
	rep, err := bench.Predictor(bench.PredictorOptions{Model: c.Model, Precision: prec, Path: path, Batch: c.Batch, Frames: c.Frames,
		Warmup: c.Warmup, Parity: c.Parity, Threads: g.kernelThreads()},
		func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench predictor: "+format+"\n", a...) })
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}
