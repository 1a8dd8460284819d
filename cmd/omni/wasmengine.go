package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
)

// wasmOptions resolves the engine flags as loadModel does (model, precision,
// deploy profile, threads) into host.Options for the WASI engine; the
// source is opened here and handed over (host does not close it: the
// returned func does).
func wasmOptions(g *Globals, f *engineFlags, maxBatch int) (host.Options, func(), error) {
	prec, err := predictor.ParsePrecision(f.Precision)
	if err != nil {
		return host.Options{}, nil, err
	}
	src, err := openModel(f.Model)
	if err != nil {
		return host.Options{}, nil, err
	}
	prof, err := f.resolveProfile(src.Config(), maxBatch)
	if err != nil {
		src.Close()
		return host.Options{}, nil, err
	}
	if maxBatch <= 0 {
		maxBatch = prof.MaxNumSeqs
	}
	o := host.Options{
		Source: src, Precision: prec, Mode: host.WASI, MaxBatch: maxBatch, Threads: g.Threads,
		Engine: f.engineConfig(prof),
		Stderr: g.Stderr,
	}
	return o, func() { src.Close() }, nil
}

// runWasm is "omni run --wasm": the same request through the WASI engine,
// the same codes JSON on stdout (playback figures from the host's receipt
// of each chunk; no step-stats table: the guest keeps no dump).
func (c *runCmd) runWasm(g *Globals, ctx context.Context, req core.Request) error {
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "run: "+format+"\n", a...) }
	o, done, err := wasmOptions(g, &c.engineFlags, 1)
	if err != nil {
		return err
	}
	defer done()
	t0 := time.Now()
	logf("loading %s in %s for the WASI control core", c.Model, o.Precision)
	e, err := host.Open(ctx, o)
	if err != nil {
		return err
	}
	defer e.Close()
	logf("loaded in %.1f s", time.Since(t0).Seconds())
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- e.Run(runCtx) }()
	s, err := e.Submit(ctx, req)
	if err != nil {
		return err
	}
	frames := 0
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if ev.Kind == core.EventFrame {
			frames++
		} else if ev.Kind == core.EventChunk && ev.Chunk.Frames > 0 {
			logf("frames %d  chunk %d (%d frames)", frames, ev.Chunk.Index, ev.Chunk.Frames)
		}
	}
	end := s.End()
	stop()
	<-ran
	if end.Reason == core.EndError {
		return end.Err
	}
	pb := core.Playback(s.Submitted(), s.Arrivals())
	logf("ended by %s after %d frames (%.2f s of audio); TTFA %.0f ms, playback start %.0f ms, %d stall(s); %d host calls",
		end.Reason, end.Frames, float64(end.Frames)*core.FrameMS/1000, pb.TTFAMS, pb.StartMS, pb.Stalls, e.HostCalls())
	out := codesFile{Model: c.Model, Precision: c.Precision, TextIDs: req.TextIDs, Frames: end.Frames, End: end.Reason.String(),
		Codes: s.Codes(), Playback: playbackJSON{pb.TTFAMS, pb.StartMS, pb.Stalls, pb.StallMS}}
	return writeJSON(g.Stdout, c.Out, out)
}
