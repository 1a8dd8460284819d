package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/host"
)

// benchE2ECmd is "omni bench e2e": N streams through the whole engine,
// with the weight-read floor measured in the same run.
type benchE2ECmd struct {
	engineFlags
	Streams   int    `default:"1" help:"Streams submitted together (${default})."`
	Frames    int    `default:"50" help:"Frames per stream; EOS is masked so every stream runs all of them (${default})."`
	Warmup    int    `default:"4" help:"Frames of a warm-up pass before the timed run (${default})."`
	Repeat    int    `default:"5" help:"With --wasm or --versus: timed repetitions, native and WASI stepped in lockstep, or the two precisions back to back (${default})."`
	JSON      bool   `name:"json" help:"Print one JSON object on stdout."`
	Wasm      bool   `help:"Run the engine as the WASI guest (wazero), with the native figure measured in the same run (codes only)."`
	CodesOnly bool   `name:"codes-only" help:"Generation alone, no codec (the figure before audio): ms per frame against the weight-read floor."`
	Versus    string `help:"With --codes-only: a second precision run back to back with --precision, --repeat rounds, and the ratios of ms and bytes per frame (--precision over this)."`
	Clone     int    `name:"clone-frames" default:"0" help:"With audio: every stream an in-context clone of this many synthetic reference frames (12.5 a second; a Base model, e.g. --model synth:0.6b-base), each its own reference, so its priming, longer prompt and longer attention are timed (0: the model's own voice)."`
}

// Run implements "omni bench e2e".
func (c *benchE2ECmd) Run(g *Globals, ctx context.Context) error {
	if err := c.checkShape(); err != nil {
		return err
	}
	c.privateAtLoad = true // time the steady state, not the copy
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench e2e: "+format+"\n", a...) }
	if c.Clone > 0 && (c.CodesOnly || c.Wasm || c.Versus != "") {
		return usageErrorf("bench e2e: --clone-frames measures with audio, natively: drop --codes-only, --wasm and --versus")
	}
	if c.Versus != "" {
		return c.runVersus(g, ctx, logf)
	}
	if c.Wasm {
		return c.runWasm(g, ctx)
	}
	if !c.CodesOnly {
		return c.runSpeech(g, ctx, logf)
	}
	e, err := c.openEngine(ctx, g, c.Streams, host.Native, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	fl := bench.NewFloorMeter(e.threads)
	defer fl.Close()
	rep, err := bench.E2E(ctx, e.Engine, e.rec, fl, e.e2eOptions(c.Streams, c.Frames, c.Warmup), logf)
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}

// checkShape refuses a bad workload by the flag that breaks its bound.
func (c *benchE2ECmd) checkShape() error {
	return checkBounds("bench e2e",
		bound{"--streams", c.Streams, 1, maxStreams},
		bound{"--frames", c.Frames, 2, maxFrames},
		bound{"--warmup", c.Warmup, 0, maxFrames},
		bound{"--repeat", c.Repeat, 1, maxRepeat},
		bound{"--clone-frames", c.Clone, 0, maxFrames})
}

// e2eOptions is the workload of bench e2e and sweep on e: the demo
// sentence's length of text per stream.
func (e *openedEngine) e2eOptions(streams, frames, warmup int) bench.E2EOptions {
	return bench.E2EOptions{Model: e.flags.Model, Threads: e.threads, Streams: streams, Frames: frames, Warmup: warmup, TextLen: len(demoTextIDs)}
}

// runSpeech is bench e2e with audio: the engine's codec stage on, every
// stream read by a player as the audio comes.
func (c *benchE2ECmd) runSpeech(g *Globals, ctx context.Context, logf func(string, ...any)) error {
	c.audio = true
	e, err := c.openEngine(ctx, g, c.Streams, host.Native, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	fl := bench.NewFloorMeter(e.threads)
	defer fl.Close()
	o := e.speechOptions(c.Streams, c.Frames, c.Warmup)
	o.Floor, o.CloneFrames = fl, c.Clone
	rep, err := bench.Speech(ctx, e.Engine, e.rec, o, logf)
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}

// speechOptions is the workload of bench e2e with audio on e.
func (e *openedEngine) speechOptions(streams, frames, warmup int) bench.SpeechOptions {
	return bench.SpeechOptions{Model: e.flags.Model, CodecPrecision: e.flags.CodecPrec, ModelThreads: e.threads, CodecThreads: e.codecThreads,
		Streams: streams, Frames: frames, Warmup: warmup, TextLen: len(demoTextIDs)}
}
