package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/bench"
)

// benchCodecCmd times the codec decoder per step for each precision, stream
// count and frames per call against the peak of each precision measured in
// the same run (bench.Codec).
type benchCodecCmd struct {
	Codec     string        `default:"synth:real" help:"Codec: a codec or checkpoint directory, or synth:SIZE[@SEED] (${default})."`
	Precision string        `default:"auto" help:"Codec precisions, comma-separated, each timed in turn: auto (the level's default, as --codec-precision), fp32, bf16, int8, mixed, or per-family specs such as bf16+transformer=fp32 (families transformer, upsample, vocoder_in, tconv, res, out) (${default})."`
	Streams   string        `default:"1,4" help:"Stream counts, comma-separated; each step decodes frames-per-call frames of every stream as one batch (${default})."`
	PerCall   string        `name:"frames-per-call" default:"1,4,25" help:"Frames per stream and decode call, comma-separated (the engine's chunker hands 2–25); weights are read once per call (${default})."`
	Frames    int           `default:"6" help:"Timed steps per repeat, stream count and frames-per-call, after the warm-up (${default})."`
	Warmup    int           `default:"2" help:"Untimed warm-up steps before each repeat (${default})."`
	Repeats   int           `default:"3" help:"Repeats of the timed steps; the report gives the median of their medians (${default})."`
	Peak      time.Duration `default:"200ms" help:"Duration of each peak measurement; the peak is the best of three before and three after the frames (the machine may be shared) (${default})."`
	SNR       int           `name:"snr" default:"0" help:"Reduced precisions: also decode this many frames of one stream with an fp32 copy of the codec and report the SNR against it (0 = off; the precision choice used 200) (${default})."`
	JSON      bool          `name:"json" help:"Print one JSON object on stdout."`
}

// Run implements "omni bench codec".
func (c *benchCodecCmd) Run(g *Globals, _ context.Context) error {
	if err := applyKernels(g); err != nil {
		return err
	}
	if err := checkBounds("bench codec",
		bound{"--frames", c.Frames, 1, maxFrames},
		bound{"--warmup", c.Warmup, 0, maxFrames},
		bound{"--repeats", c.Repeats, 1, 100},
		bound{"--snr", c.SNR, 0, maxFrames}); err != nil {
		return err
	}
	precs, err := parsePrecisions(c.Precision)
	if err != nil {
		return err
	}
	counts, err := parseCounts("--streams", c.Streams, 256)
	if err != nil {
		return err
	}
	perCall, err := parseCounts("--frames-per-call", c.PerCall, 256)
	if err != nil {
		return err
	}
	rep, err := bench.Codec(bench.CodecOptions{Codec: c.Codec, Precisions: precs, Streams: counts, PerCall: perCall,
		Steps: c.Frames, Warmup: c.Warmup, Repeats: c.Repeats, Peak: c.Peak, SNRFrames: c.SNR, Threads: g.kernelThreads()},
		func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench codec: "+format+"\n", a...) })
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}

// parsePrecisions parses a comma-separated list of codec precisions
// (auto, presets or per-family specs: resolveCodecPrecision).
func parsePrecisions(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		p, err := resolveCodecPrecision(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("bench codec: --precision %q: %w", list, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// parseCounts parses a comma-separated list of counts in [1, most].
func parseCounts(flag, list string, most int) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > most {
			return nil, fmt.Errorf("bench codec: %s %q: %q is not a count in [1, %d]", flag, list, f, most)
		}
		counts = append(counts, n)
	}
	return counts, nil
}
