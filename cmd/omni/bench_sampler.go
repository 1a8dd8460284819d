package main

import (
	"context"

	"github.com/omni-tts/omni/bench"
)

// benchSamplerCmd times the batched sampler on random logits, every row
// seeded (so every row draws its V exponentials), against the floor of
// advancing the generators alone.
type benchSamplerCmd struct {
	Vocab       int     `default:"3072" help:"Vocabulary V (${default})."`
	Batch       int     `default:"8" help:"Rows per call B (${default})."`
	TopK        int     `name:"top-k" default:"50" help:"top_k of every row; 0 = off (${default})."`
	TopP        float64 `name:"top-p" default:"1" help:"top_p of every row (${default})."`
	MinP        float64 `name:"min-p" default:"0" help:"min_p of every row (${default})."`
	Temperature float64 `default:"0.9" help:"Temperature of every row (${default})."`
	Repetition  float64 `default:"1" help:"repetition_penalty of every row (${default})."`
	Calls       int     `default:"200" help:"Calls per repetition (${default})."`
	Reps        int     `default:"15" help:"Repetitions; the median is reported (${default})."`
	JSON        bool    `name:"json" help:"Print one JSON object on stdout."`
}

// Run implements "omni bench sampler".
func (c *benchSamplerCmd) Run(g *Globals, _ context.Context) error {
	if err := checkBounds("bench sampler",
		bound{"--vocab", c.Vocab, 2, maxVocab},
		bound{"--batch", c.Batch, 1, maxStreams},
		bound{"--calls", c.Calls, 1, maxCalls},
		bound{"--reps", c.Reps, 1, maxRepeat}); err != nil {
		return err
	}
	rep, err := bench.Sampler(bench.SamplerOptions{Vocab: c.Vocab, Batch: c.Batch, TopK: c.TopK, TopP: c.TopP, MinP: c.MinP,
		Temperature: c.Temperature, Repetition: c.Repetition, Calls: c.Calls, Reps: c.Reps})
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}
