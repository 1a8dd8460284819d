package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
)

// runVersus is "omni bench e2e --codes-only --versus P": the engine opened
// in --precision and in P side by side, then --repeat rounds of one timed
// codes-only run on each, back to back, each with its floor measured
// beside it, and the ratios.
func (c *benchE2ECmd) runVersus(g *Globals, ctx context.Context, logf func(string, ...any)) error {
	if !c.CodesOnly || c.Wasm {
		return fmt.Errorf("bench e2e: --versus compares codes-only native runs: add --codes-only (and drop --wasm)")
	}
	if _, err := predictor.ParsePrecision(c.Versus); err != nil {
		return fmt.Errorf("bench e2e: --versus: %w", err)
	}
	test, err := c.openEngine(ctx, g, c.Streams, host.Native, logf)
	if err != nil {
		return err
	}
	defer test.Close()
	baseFlags := c.engineFlags
	baseFlags.Precision = c.Versus
	base, err := baseFlags.openEngine(ctx, g, c.Streams, host.Native, logf)
	if err != nil {
		return err
	}
	defer base.Close()
	fl := bench.NewFloorMeter(test.threads)
	defer fl.Close()
	var tr, br []*bench.E2EReport
	for i := 0; i < c.Repeat; i++ {
		for _, e := range []*openedEngine{test, base} {
			logf("round %d/%d: %s", i+1, c.Repeat, e.prec)
			rep, err := bench.E2E(ctx, e.Engine, e.rec, fl, e.e2eOptions(c.Streams, c.Frames, c.Warmup), logf)
			if err != nil {
				return err
			}
			if e == test {
				tr = append(tr, rep)
			} else {
				br = append(br, rep)
			}
		}
	}
	rep := bench.Versus(c.Model, tr, br)
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}
