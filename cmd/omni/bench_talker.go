package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/predictor"
)

// benchTalkerCmd times the talker's prefill and decode steps against the
// weight-read floor measured in the same run.
type benchTalkerCmd struct {
	Model     string `default:"synth:0.6b" help:"Model: a checkpoint directory or synth:SIZE[+outliers] (${default})."`
	Precision string `default:"int8" enum:"fp32,int8,int8-fp32head,int4,int4-mlp,int4-gateup,int4-late" help:"Matrix precision: ${enum} (${default})."`
	Batch     int    `default:"1" help:"Sequences per decode step (${default})."`
	Tokens    int    `default:"20" help:"Timed decode steps, after 2 warm-up steps (${default})."`
	Prompt    int    `default:"64" help:"Prefill rows per sequence (a typical prompt) (${default})."`
	Prefills  int    `default:"5" help:"Prefills timed on top of the batch's, each of a new sequence after an untimed one; the median of all is reported (${default})."`
	JSON      bool   `name:"json" help:"Print one JSON object on stdout."`
}

// Run implements "omni bench talker".
func (c *benchTalkerCmd) Run(g *Globals, _ context.Context) error {
	if err := checkBounds("bench talker",
		bound{"--batch", c.Batch, 1, maxStreams},
		bound{"--tokens", c.Tokens, 1, maxFrames},
		bound{"--prompt", c.Prompt, 1, maxFrames},
		bound{"--prefills", c.Prefills, 0, maxRepeat}); err != nil {
		return err
	}
	prec, err := predictor.ParsePrecision(c.Precision)
	if err != nil {
		return err
	}
	rep, err := bench.Talker(bench.TalkerOptions{Model: c.Model, Precision: prec, Batch: c.Batch, Tokens: c.Tokens, Prompt: c.Prompt, Prefills: c.Prefills, Threads: g.kernelThreads()},
		func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench talker: "+format+"\n", a...) })
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}
