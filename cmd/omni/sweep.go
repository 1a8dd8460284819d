package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/host"
)

// sweepCmd is "omni sweep": bench e2e over thread counts and stream counts,
// written as summary.json, summary.md and an SVG chart.
type sweepCmd struct {
	engineFlags
	// The global --threads is one number, so the list has its own name.
	Threads   string `name:"sweep-threads" default:"1,2" help:"Thread counts to sweep, comma-separated (${default}); with audio an entry M+C gives model and codec threads (M alone: the codec gets --codec-threads or the profile's); the global --threads is ignored here."`
	CodesOnly bool   `name:"codes-only" help:"Sweep the generation alone (bench e2e --codes-only)."`
	Streams   string `default:"1,4,8" help:"Stream counts to sweep, comma-separated (${default})."`
	Frames    int    `default:"30" help:"Frames per stream in each run (${default})."`
	Warmup    int    `default:"4" help:"Warm-up frames before each run (${default})."`
	Out       string `default:"sweep" help:"Directory for summary.json, summary.md and sweep.svg (${default})."`
}

// parseInts parses "1,2,4" into ints in [1, hi].
func parseInts(flag, s string, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, usageErrorf("sweep: --%s entry %q is not an integer", flag, f)
		}
		if err := inRange("sweep: --"+flag+" entry", v, 1, hi); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep: --%s %q is empty", flag, s)
	}
	return out, nil
}

// Run implements "omni sweep".
func (c *sweepCmd) Run(g *Globals, ctx context.Context) error {
	if !c.CodesOnly {
		return c.runSpeech(g, ctx)
	}
	threads, err := parseInts("sweep-threads", c.Threads, maxThreads)
	if err != nil {
		return err
	}
	streams, err := parseInts("streams", c.Streams, maxStreams)
	if err != nil {
		return err
	}
	if err := checkBounds("sweep", bound{"--frames", c.Frames, 2, maxFrames}, bound{"--warmup", c.Warmup, 0, maxFrames}); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "sweep: "+format+"\n", a...) }
	maxStreams := 0
	for _, s := range streams {
		maxStreams = max(maxStreams, s)
	}
	sum := bench.Sweep{Date: time.Now().UTC().Format(time.RFC3339), Model: c.Model, Precision: c.Precision, Frames: c.Frames}
	for _, t := range threads {
		gt := *g
		gt.Threads = t
		e, err := c.openEngine(ctx, &gt, maxStreams, host.Native, logf)
		if err != nil {
			return err
		}
		fl := bench.NewFloorMeter(e.threads)
		for _, n := range streams {
			logf("%d thread(s), %d stream(s)", t, n)
			rep, err := bench.E2E(ctx, e.Engine, e.rec, fl, e.e2eOptions(n, c.Frames, c.Warmup), logf)
			if err != nil {
				fl.Close()
				e.Close()
				return err
			}
			logf("  %.2f ms/frame, RTF %.3f, %.2f frames/s, TTFA p50 %.0f ms, efficiency %.2f",
				rep.MsPerFrame, rep.RTF, rep.FramesPerS, rep.TTFAMsP50, rep.Efficiency)
			sum.Runs = append(sum.Runs, rep)
		}
		fl.Close()
		e.Close()
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"summary.json": append(b, '\n'),
		"summary.md":   []byte(sum.Markdown()),
		"sweep.svg":    []byte(sum.SVG(threads)),
	}
	for _, name := range []string{"summary.json", "summary.md", "sweep.svg"} {
		p := filepath.Join(c.Out, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		fmt.Fprintln(g.Stdout, p)
	}
	return nil
}

// parseSplits parses "1+1,2,1+2" into (model, codec) thread pairs; codec 0
// means the default.
func parseSplits(s string) ([][2]int, error) {
	var out [][2]int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		m, cs, both := strings.Cut(f, "+")
		ms, err := parseInts("sweep-threads", m, maxThreads)
		if err != nil {
			return nil, err
		}
		pair := [2]int{ms[0], 0}
		if both {
			cv, err := parseInts("sweep-threads", cs, maxThreads)
			if err != nil {
				return nil, err
			}
			pair[1] = cv[0]
		}
		out = append(out, pair)
	}
	if len(out) == 0 {
		return nil, usageErrorf("sweep: --sweep-threads %q is empty", s)
	}
	return out, nil
}

// runSpeech is omni sweep with audio: bench e2e with audio per thread
// split and stream count.
func (c *sweepCmd) runSpeech(g *Globals, ctx context.Context) error {
	splits, err := parseSplits(c.Threads)
	if err != nil {
		return err
	}
	streams, err := parseInts("streams", c.Streams, maxStreams)
	if err != nil {
		return err
	}
	if err := checkBounds("sweep", bound{"--frames", c.Frames, 2, maxFrames}, bound{"--warmup", c.Warmup, 0, maxFrames}); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "sweep: "+format+"\n", a...) }
	maxN := 0
	for _, s := range streams {
		maxN = max(maxN, s)
	}
	sum := bench.SpeechSweep{Date: time.Now().UTC().Format(time.RFC3339), Model: c.Model, Precision: c.Precision, CodecPrecision: c.CodecPrec, Frames: c.Frames}
	c.audio = true
	codecDefault := c.CodecThreads
	for _, sp := range splits {
		gt := *g
		gt.Threads = sp[0]
		c.CodecThreads = codecDefault
		if sp[1] > 0 {
			c.CodecThreads = sp[1]
		}
		e, err := c.openEngine(ctx, &gt, maxN, host.Native, logf)
		if err != nil {
			return err
		}
		for _, n := range streams {
			logf("%d+%d thread(s), %d stream(s)", e.threads, e.codecThreads, n)
			rep, err := bench.Speech(ctx, e.Engine, e.rec, e.speechOptions(n, c.Frames, c.Warmup), logf)
			if err != nil {
				e.Close()
				return err
			}
			logf("  RTF with audio %.3f, TTFA p50 %.0f ms, %d stall(s); gen %.1f ms/step, codec %.1f ms/step",
				rep.RTF, rep.TTFAMsP50, rep.Stalls, rep.GenMsPerStep, rep.CodecMsPerStep)
			sum.Runs = append(sum.Runs, rep)
		}
		e.Close()
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"summary.json": append(b, '\n'),
		"summary.md":   []byte(sum.Markdown()),
		"sweep.svg":    []byte(sum.SVG()),
	}
	for _, name := range []string{"summary.json", "summary.md", "sweep.svg"} {
		p := filepath.Join(c.Out, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		fmt.Fprintln(g.Stdout, p)
	}
	return nil
}
