package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/host"
)

// runWasm is "omni bench e2e --wasm".
func (c *benchE2ECmd) runWasm(g *Globals, ctx context.Context) error {
	o, _, err := c.hostOptions(g, c.Streams, host.WASI)
	if err != nil {
		return err
	}
	defer o.Source.Close()
	fmt.Fprintf(g.Stderr, "bench e2e: %s in %s, %d stream(s) × %d frames, native and WASI in lockstep, %d runs each\n", c.Model, o.Precision, c.Streams, c.Frames, c.Repeat)
	r, err := bench.WASI(ctx, o, bench.WASIOptions{Model: c.Model, Streams: c.Streams, Frames: c.Frames, TextLen: len(demoTextIDs), Warmup: c.Warmup, Repeat: c.Repeat})
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, r, true)
	}
	r.WriteText(g.Stdout)
	return nil
}
