package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/sched"
	"github.com/omni-tts/omni/stats"
)

// demoTextIDs is the built-in demo prompt of omni run without --text or
// --text-ids: the Qwen2 tokenizer's ids of a short sentence (any ids below
// the text vocabulary work), also the prompt of bench e2e.
var demoTextIDs = []int32{9707, 11, 419, 374, 8177, 12094, 13, 1084, 8473, 3409, 421, 264, 3974, 2213, 13}

// limits returns the frame-cap limits the flags give.
func (f *engineFlags) limits() core.Limits {
	return core.Limits{PerTextToken: f.FramesPerTok, Floor: f.FrameFloor, MaxNewTokens: f.MaxNewTokens}
}

// check refuses bad flag values before the (slow) model load, naming the
// flag and its bound.
func (f *engineFlags) check() error {
	if err := inRange("--hop-depth", f.HopDepth, 1, maxHopDepth); err != nil {
		return err
	}
	if err := inRange("--frames-per-token", f.FramesPerTok, 1, maxFrames); err != nil {
		return err
	}
	if err := inRange("--frame-floor", f.FrameFloor, 1, maxFrames); err != nil {
		return err
	}
	return inRange("--max-new-tokens", f.MaxNewTokens, 1, maxFrames)
}

// resolveProfile resolves the flags' deploy profile for a model of cfg's
// talker geometry; maxBatch > 0 overrides its max_num_seqs, and
// --chunk-adaptive / --no-chunk-adaptive its chunk_adaptive.
func (f *engineFlags) resolveProfile(cfg *predictor.Config, maxBatch int) (deploy.Profile, error) {
	ro := deploy.ResolveOptions{Profile: f.DeployProfile, Model: f.Model,
		Geometry: sched.KVGeometry{NumLayers: cfg.Talker.Layers, NumKVHeads: cfg.Talker.KVHeads, HeadDim: cfg.Talker.HeadDim}}
	if maxBatch > 0 {
		ro.Flags.MaxNumSeqs = &maxBatch
	}
	ro.Flags.ChunkAdaptive = f.ChunkAdaptive
	return deploy.Resolve(ro)
}

// engineConfig returns the engine settings the flags and the resolved
// profile give, the same for the native and the WASI engine: KV budget,
// frame caps, chunk schedule (the profile's adaptive controller when it
// says chunk_adaptive, else its fixed ramp), hop depth, throttle margin.
// host.Open sets the model, ids and batch.
func (f *engineFlags) engineConfig(prof deploy.Profile) core.Config {
	c := core.Config{
		KVBudgetBytes: prof.Memory.KVBytes,
		Limits:        f.limits(),
		Chunks:        prof.Ramp(),
		HopDepth:      f.HopDepth,
		Throttle:      core.Throttle{MarginMS: prof.ChunkMarginMS},
	}
	if prof.ChunkAdaptive {
		a := prof.AdaptiveConfig()
		c.Adaptive = &a
	}
	return c
}

// runCmd is "omni run": one request through the engine (native, or the
// WASI guest with --wasm: the same loop and the same codes JSON), progress
// on stderr, codes on stdout (or --out), the attribution table at the end
// when native. Ctrl-C or SIGTERM ends the stream cancelled and writes the
// frames made so far, marked partial.
type runCmd struct {
	engineFlags
	requestFlags
	Text      *string `help:"Text to speak, tokenized with the model's tokenizer (default: a built-in demo sentence as ids)."`
	TextIDs   *string `name:"text-ids" help:"Text token ids, comma-separated, instead of --text (at least one)."`
	SpeakerID int32   `name:"speaker-id" help:"Speaker codec row, when --speaker is empty (0 = none; ids path only)."`
	MaxFrames int     `name:"max-frames" default:"50" help:"Frame cap, 0..${max_frames} (0 = derived from the text length) (${default})."`
	Out       string  `help:"Write the codes as JSON here (default: stdout)."`
	Wasm      bool    `help:"Run the engine as the WASI guest (wazero; kernels as host functions)."`
}

// requestFlags are the request flags omni run and omni say share: language,
// speaker, instruction, layout, seeds and sampling.
type requestFlags struct {
	Language string `default:"auto" help:"Language name of the model's table, or auto (${default})."`
	Speaker  string `help:"Speaker name of the model's table (CustomVoice), or empty."`
	Instruct string `help:"Instruction (1.7B CustomVoice, VoiceDesign), or empty."`
	Layout   string `enum:",streaming,non-streaming" default:"" help:"Prompt layout: streaming or non-streaming (default: the model type's)."`

	Seed              *int64  `help:"Codebook-0 generator seed (default: the engine's generator)."`
	PredictorSeed     *int64  `name:"predictor-seed" help:"Codebooks 1..15 generator seed (default: the engine's generator)."`
	Temperature       float64 `default:"${talker_temperature}" help:"Codebook-0 temperature (0 = greedy) (${default})."`
	TopK              int     `name:"top-k" default:"${talker_top_k}" help:"Codebook-0 top-k (0 = off) (${default})."`
	TopP              float64 `name:"top-p" default:"${talker_top_p}" help:"Codebook-0 top-p (${default})."`
	MinP              float64 `name:"min-p" default:"${talker_min_p}" help:"Codebook-0 min-p (${default})."`
	RepetitionPenalty float64 `name:"repetition-penalty" default:"${talker_repetition_penalty}" help:"Repetition penalty over earlier codebook-0 ids (${default})."`
	MinFrames         int     `name:"min-frames" default:"${talker_min_tokens}" help:"Frames before EOS may be sampled (min_tokens) (${default})."`
	PredTemperature   float64 `name:"predictor-temperature" default:"${predictor_temperature}" help:"Codebooks 1..15 temperature (${default})."`
	PredTopK          int     `name:"predictor-top-k" default:"${predictor_top_k}" help:"Codebooks 1..15 top-k (${default})."`
	PredTopP          float64 `name:"predictor-top-p" default:"${predictor_top_p}" help:"Codebooks 1..15 top-p (${default})."`
}

// textInput returns the text input of text under the flags.
func (f *requestFlags) textInput(text string) core.TextInput {
	return core.TextInput{Text: text, Language: f.Language, Speaker: f.Speaker, Instruct: f.Instruct, Layout: f.Layout}
}

// sampling sets the seeds and sampling flags on r (core.Request.ApplySampling).
func (f *requestFlags) sampling(r *core.Request) error {
	if err := inRange("--min-frames", f.MinFrames, 0, maxFrames); err != nil {
		return err
	}
	r.ApplySampling(core.Sampling{
		Temperature: &f.Temperature, TopK: &f.TopK, TopP: &f.TopP, MinP: &f.MinP,
		RepetitionPenalty: &f.RepetitionPenalty, MinTokens: &f.MinFrames, Seed: f.Seed,
		PredictorTemperature: &f.PredTemperature, PredictorTopK: &f.PredTopK, PredictorTopP: &f.PredTopP, PredictorSeed: f.PredictorSeed,
	})
	return nil
}

// codesFile is what omni run writes.
type codesFile struct {
	Model     string       `json:"model"`
	Precision string       `json:"precision"`
	Mode      string       `json:"mode"` // "native" or "wasi"
	TextIDs   []int32      `json:"text_ids"`
	Frames    int          `json:"frames"`
	End       string       `json:"end"`
	Partial   bool         `json:"partial,omitempty"` // the run was interrupted: codes holds the frames made so far
	Codes     [][16]int32  `json:"codes"`
	Playback  playbackJSON `json:"playback"`
}

// playbackJSON is a core.PlaybackReport in JSON.
type playbackJSON struct {
	TTFAMS  float64 `json:"ttfa_ms"`
	StartMS float64 `json:"playback_start_ms"`
	Stalls  int     `json:"stalls"`
	StallMS float64 `json:"stall_ms"`
}

// parseIDs parses "1,2,3".
func parseIDs(s string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 {
			return nil, usageErrorf("run: --text-ids id %q is not a non-negative 32-bit integer", f)
		}
		out = append(out, int32(v))
	}
	if len(out) == 0 {
		return nil, usageErrorf("run: --text-ids %q holds no ids (leave it out for the demo sentence)", s)
	}
	return out, nil
}

// request builds the request the flags describe on engine e: from --text
// through the model's tokenizer (e.Request), else from --text-ids or the
// demo ids.
func (c *runCmd) request(e host.Engine) (core.Request, error) {
	if err := inRange("--max-frames", c.MaxFrames, 0, maxFrames); err != nil {
		return core.Request{}, err
	}
	var r core.Request
	if c.Text != nil {
		if c.TextIDs != nil {
			return r, usageErrorf("run: give --text or --text-ids, not both")
		}
		var err error
		if r, err = e.Request(c.textInput(*c.Text)); err != nil {
			return r, err
		}
	} else {
		ids := demoTextIDs
		if c.TextIDs != nil {
			var err error
			if ids, err = parseIDs(*c.TextIDs); err != nil {
				return core.Request{}, err
			}
		}
		r = core.NewRequest(ids)
		r.Language, r.Speaker, r.SpeakerID = c.Language, c.Speaker, c.SpeakerID
		r.Layout = core.DefaultLayout(e.IDs().ModelKind)
		if c.Layout != "" {
			l, err := core.ParseLayout(c.Layout)
			if err != nil {
				return r, err
			}
			r.Layout = l
		}
		if c.Instruct != "" {
			return r, usageErrorf("run: --instruct needs --text (the instruction is tokenized)")
		}
	}
	r.ID, r.MaxFrames = "run", c.MaxFrames
	return r, c.sampling(&r)
}

// Run implements "omni run".
func (c *runCmd) Run(g *Globals, ctx context.Context) error {
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "run: "+format+"\n", a...) }
	if err := inRange("--max-frames", c.MaxFrames, 0, maxFrames); err != nil {
		return err
	}
	if c.TextIDs != nil {
		if _, err := parseIDs(*c.TextIDs); err != nil {
			return err
		}
	}
	mode := host.Native
	if c.Wasm {
		mode = host.WASI
	}
	e, err := c.openEngine(ctx, g, 1, mode, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	req, err := c.request(e)
	if err != nil {
		return err
	}
	res, err := runStream(ctx, e, req, logf)
	if err != nil {
		if c.Text != nil {
			return contextInWords("run", *c.Text, err)
		}
		return err
	}
	s, end := res.stream, res.end
	if end.Reason == core.EndError {
		return end.Err
	}
	pb := core.Playback(s.Submitted(), s.Arrivals())
	logf("ended by %s after %d frames of cap %d (%.2f s of audio); TTFA %.0f ms, playback start %.0f ms, %d stall(s); %d host calls",
		end.Reason, end.Frames, end.Cap, float64(end.Frames)*core.FrameMS/1000, pb.TTFAMS, pb.StartMS, pb.Stalls, host.HostCallsOf(e.Engine))
	out := codesFile{Model: c.Model, Precision: c.Precision, Mode: mode.String(), TextIDs: req.TextIDs, Frames: len(res.codes),
		End: end.Reason.String(), Partial: ctx.Err() != nil, Codes: res.codes, Playback: playbackJSON{pb.TTFAMS, pb.StartMS, pb.Stalls, pb.StallMS}}
	if err := writeJSON(g.Stdout, c.Out, out, false); err != nil {
		return err
	}
	if rows := e.attribution(); rows != nil {
		fmt.Fprint(g.Stderr, stats.FormatTable(rows, stats.FrameBudgetMS))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("run: interrupted after %d frames (written, marked partial): %w", len(res.codes), ctx.Err())
	}
	return nil
}

// streamResult is what runStream collected.
type streamResult struct {
	stream *core.Stream
	end    core.End
	codes  [][core.Codebooks]int32 // every frame read, also when cancelled
}

// runStream is the one event loop of omni run (either mode): it drives e
// on its own goroutine, submits req under ctx and reads the stream to its
// end, logging each chunk. Cancelling ctx ends the stream as cancelled
// (its KV freed at the next step) and the loop still reads it to the end,
// so the frames made so far are returned.
func runStream(ctx context.Context, e host.Engine, req core.Request, logf func(string, ...any)) (res *streamResult, err error) {
	stop := e.Start(context.WithoutCancel(ctx))
	defer func() {
		if serr := stop(); serr != nil {
			res, err = nil, serr
		}
	}()
	s, err := e.Submit(ctx, req)
	if err != nil {
		return nil, err
	}
	res = &streamResult{stream: s}
	var first, last time.Duration
	for {
		ev, err := s.Next(context.WithoutCancel(ctx))
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind {
		case core.EventFrame:
			res.codes = append(res.codes, ev.Frame.Codes)
			if len(res.codes) == 1 {
				first = ev.Frame.At
			}
			last = ev.Frame.At
		case core.EventChunk:
			if ev.Chunk.Frames == 0 {
				continue
			}
			msf := 0.0
			if n := len(res.codes); n > 1 {
				msf = float64(last-first) / float64(time.Millisecond) / float64(n-1)
			}
			logf("frames %d  chunk %d (%d frames)  %.1f ms/frame  RTF %.2f", len(res.codes), ev.Chunk.Index, ev.Chunk.Frames, msf, msf/core.FrameMS)
		case core.EventEnd:
			res.end = ev.End
		}
	}
	return res, nil
}
