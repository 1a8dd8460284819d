package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/sched"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
)

// demoTextIDs is the built-in demo prompt: Qwen2-tokenizer-style ids of a
// short sentence (omni has no tokenizer yet; any ids below the text
// vocabulary work).
var demoTextIDs = []int32{9707, 11, 419, 374, 8177, 12094, 13, 1084, 8473, 3409, 421, 264, 3974, 2213, 13}

// engineFlags are the flags every engine-driving command shares.
type engineFlags struct {
	Model         string `default:"synth:0.6b" help:"Model: a checkpoint directory, a pulled hub id ORG/NAME[@REV], or synth:SIZE[+outliers][@SEED] (${default})."`
	Precision     string `default:"int8" enum:"fp32,int8,int8-fp32head" help:"Matrix precision: ${enum} (${default})."`
	DeployProfile string `name:"deploy-profile" default:"auto" help:"Deploy profile: auto, edge, a user profile name or a JSON file (${default}); gives the KV budget and the chunk ramp." env:"OMNI_DEPLOY_PROFILE"`
	HopDepth      int    `name:"hop-depth" default:"4" help:"Chunks the codec-stage queue holds (${default})."`
	FramesPerTok  int    `name:"frames-per-token" default:"5" help:"Derived frame cap: frames allowed per text token (${default})."`
	FrameFloor    int    `name:"frame-floor" default:"64" help:"Derived frame cap: at least this many frames (${default})."`
	MaxNewTokens  int    `name:"max-new-tokens" default:"8192" help:"Absolute frame cap of any request (${default})."`
	StatsDir      string `name:"stats-dir" help:"Keep the step-stats dump here (default: a temporary directory, or $OMNI_STEP_STATS_DIR)." env:"OMNI_STEP_STATS_DIR"`
	ChunkAdaptive *bool  `name:"chunk-adaptive" negatable:"" help:"Adaptive chunk sizing (default: the deploy profile's; auto says yes, edge no)."`
}

// limits returns the frame-cap limits the flags give.
func (f *engineFlags) limits() core.Limits {
	return core.Limits{PerTextToken: f.FramesPerTok, Floor: f.FrameFloor, MaxNewTokens: f.MaxNewTokens}
}

// check refuses bad flag values before the (slow) model load.
func (f *engineFlags) check() error {
	if err := f.limits().Validate(); err != nil {
		return err
	}
	if f.HopDepth < 1 {
		return fmt.Errorf("--hop-depth %d must be >= 1", f.HopDepth)
	}
	return nil
}

// resolveProfile resolves the flags' deploy profile for a model of cfg's
// talker geometry; maxBatch > 0 overrides its max_num_seqs, and
// --chunk-adaptive / --no-chunk-adaptive its chunk_adaptive.
func (f *engineFlags) resolveProfile(cfg *predictor.Config, maxBatch int) (sched.Profile, error) {
	ro := sched.ResolveOptions{Profile: f.DeployProfile, Model: f.Model,
		Geometry: sched.KVGeometry{NumLayers: cfg.Talker.Layers, NumKVHeads: cfg.Talker.KVHeads, HeadDim: cfg.Talker.HeadDim}}
	if maxBatch > 0 {
		ro.Flags.MaxNumSeqs = &maxBatch
	}
	ro.Flags.ChunkAdaptive = f.ChunkAdaptive
	return sched.Resolve(ro)
}

// engineConfig returns the engine settings the flags and the resolved
// profile give, the same for the native and the WASI engine: KV budget,
// frame caps, chunk schedule (the profile's adaptive controller when it
// says chunk_adaptive, else its fixed ramp), hop depth, throttle margin.
// The caller sets the model, ids, batch and injected dependencies.
func (f *engineFlags) engineConfig(prof sched.Profile) core.Config {
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

// loadedModel is a model loaded on the native backend, ready to host
// engines one after another (each with fresh step stats).
type loadedModel struct {
	flags   *engineFlags
	src     predictor.Source
	cfg     *predictor.Config
	backend *simd.Backend
	weights *predictor.Weights
	threads int
	profile sched.Profile
	batch   int // max_num_seqs of the engines (the profile's, or the caller's)
}

// loadModel loads the flags' model on simd's native backend; maxBatch > 0
// overrides the deploy profile's max_num_seqs.
func loadModel(g *Globals, f *engineFlags, maxBatch int, logf func(string, ...any)) (*loadedModel, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	prec, err := predictor.ParsePrecision(f.Precision)
	if err != nil {
		return nil, err
	}
	threads := g.kernelThreads()
	src, err := openModel(f.Model)
	if err != nil {
		return nil, err
	}
	cfg := src.Config()
	prof, err := f.resolveProfile(cfg, maxBatch)
	if err != nil {
		src.Close()
		return nil, err
	}
	if maxBatch <= 0 {
		maxBatch = prof.MaxNumSeqs
	}
	b := simd.NewBackend(threads)
	t0 := time.Now()
	logf("loading %s in %s on %d thread(s), kernels %s", f.Model, prec, threads, simd.Active())
	w, err := predictor.LoadWeights(src, b, prec)
	if err != nil {
		b.Close()
		src.Close()
		return nil, err
	}
	logf("loaded in %.1f s", time.Since(t0).Seconds())
	return &loadedModel{flags: f, src: src, cfg: cfg, backend: b, weights: w, threads: threads, profile: prof, batch: maxBatch}, nil
}

// close frees the weights, the backend and the source.
func (lm *loadedModel) close() {
	lm.weights.Free()
	lm.backend.Close()
	lm.src.Close()
}

// loadedEngine is an engine on a loaded model, with its recording codec
// stage and step stats.
type loadedEngine struct {
	*core.Engine
	rec   *stats.Recorder
	log   *core.ChunkLog
	close func()
}

// start builds an engine with a recording codec stage and a fresh stats
// recorder (in --stats-dir, or a temporary directory removed at close).
func (lm *loadedModel) start() (*loadedEngine, error) {
	f := lm.flags
	le := &loadedEngine{log: &core.ChunkLog{}}
	dir, tmp := f.StatsDir, ""
	var err error
	if dir == "" {
		if tmp, err = os.MkdirTemp("", "omni-stats-"); err != nil {
			return nil, err
		}
		dir = tmp
	}
	cleanup := func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	if le.rec, err = stats.New(stats.Config{Dir: dir, Role: "engine"}); err != nil {
		cleanup()
		return nil, err
	}
	m, err := core.NewModel(lm.weights, core.ModelOptions{MaxBatch: lm.batch})
	if err != nil {
		le.rec.Close()
		cleanup()
		return nil, err
	}
	ec := f.engineConfig(lm.profile)
	ec.Model, ec.IDs, ec.MaxBatch = m, core.IDsFromConfig(lm.cfg), lm.batch
	ec.Sink, ec.Stats = le.log, le.rec
	le.Engine, err = core.New(ec)
	if err != nil {
		m.Close()
		le.rec.Close()
		cleanup()
		return nil, err
	}
	le.close = func() {
		le.Engine.Close()
		le.rec.Close()
		cleanup()
	}
	return le, nil
}

// attribution returns the engine's counters as attribution rows (share of
// the 80 ms frame).
func (le *loadedEngine) attribution() []stats.Row {
	return stats.Attribution(stats.Roles{"engine": le.rec.Summaries()}, stats.FrameBudgetMS)
}

// runCmd is "omni run": one request through the engine, progress on
// stderr, codes on stdout (or --out), the attribution table at the end.
type runCmd struct {
	engineFlags
	Text      string `help:"Text token ids, comma-separated (default: a built-in demo sentence)."`
	Language  string `default:"auto" help:"Language name of the model's table, or auto (${default})."`
	Speaker   string `help:"Speaker name of the model's table (CustomVoice), or empty."`
	SpeakerID int32  `name:"speaker-id" help:"Speaker codec row, when --speaker is empty (0 = none)."`
	Layout    string `default:"streaming" enum:"streaming,non-streaming" help:"Prompt layout: ${enum} (${default})."`
	MaxFrames int    `name:"max-frames" default:"50" help:"Frame cap (0 = derived from the text length) (${default})."`
	Out       string `help:"Write the codes as JSON here (default: stdout)."`
	Wasm      bool   `help:"Run the engine as the WASI guest (wazero; kernels as host functions)."`

	Seed              *int64  `help:"Codebook-0 generator seed (default: the engine's generator)."`
	PredictorSeed     *int64  `name:"predictor-seed" help:"Codebooks 1..15 generator seed (default: the engine's generator)."`
	Temperature       float64 `default:"0.9" help:"Codebook-0 temperature (0 = greedy) (${default})."`
	TopK              int     `name:"top-k" default:"50" help:"Codebook-0 top-k (0 = off) (${default})."`
	TopP              float64 `name:"top-p" default:"1" help:"Codebook-0 top-p (${default})."`
	MinP              float64 `name:"min-p" default:"0" help:"Codebook-0 min-p (${default})."`
	RepetitionPenalty float64 `name:"repetition-penalty" default:"1.05" help:"Repetition penalty over earlier codebook-0 ids (${default})."`
	MinFrames         int     `name:"min-frames" default:"2" help:"Frames before EOS may be sampled (min_tokens) (${default})."`
	PredTemperature   float64 `name:"predictor-temperature" default:"0.9" help:"Codebooks 1..15 temperature (${default})."`
	PredTopK          int     `name:"predictor-top-k" default:"50" help:"Codebooks 1..15 top-k (${default})."`
	PredTopP          float64 `name:"predictor-top-p" default:"1" help:"Codebooks 1..15 top-p (${default})."`
}

// codesFile is what omni run writes.
type codesFile struct {
	Model     string       `json:"model"`
	Precision string       `json:"precision"`
	TextIDs   []int32      `json:"text_ids"`
	Frames    int          `json:"frames"`
	End       string       `json:"end"`
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
		if err != nil {
			return nil, fmt.Errorf("run: text id %q is not an integer", f)
		}
		out = append(out, int32(v))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run: --text %q holds no ids", s)
	}
	return out, nil
}

// request builds the request the flags describe.
func (c *runCmd) request() (core.Request, error) {
	ids := demoTextIDs
	if c.Text != "" {
		var err error
		if ids, err = parseIDs(c.Text); err != nil {
			return core.Request{}, err
		}
	}
	r := core.NewRequest(ids)
	r.ID = "run"
	r.Language, r.Speaker, r.SpeakerID, r.MaxFrames = c.Language, c.Speaker, c.SpeakerID, c.MaxFrames
	var err error
	if r.Layout, err = core.ParseLayout(c.Layout); err != nil {
		return r, err
	}
	t := &r.Talker
	t.Temperature, t.TopK, t.TopP, t.MinP, t.RepetitionPenalty, t.MinTokens, t.Seed =
		c.Temperature, c.TopK, c.TopP, c.MinP, c.RepetitionPenalty, c.MinFrames, c.Seed
	p := &r.Predictor
	p.Temperature, p.TopK, p.TopP, p.Seed = c.PredTemperature, c.PredTopK, c.PredTopP, c.PredictorSeed
	return r, nil
}

// Run implements "omni run".
func (c *runCmd) Run(g *Globals, ctx context.Context) error {
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "run: "+format+"\n", a...) }
	req, err := c.request()
	if err != nil {
		return err
	}
	if c.Wasm {
		return c.runWasm(g, ctx, req)
	}
	lm, err := loadModel(g, &c.engineFlags, 1, logf)
	if err != nil {
		return err
	}
	defer lm.close()
	le, err := lm.start()
	if err != nil {
		return err
	}
	defer le.close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- le.Run(runCtx) }()
	s, err := le.Submit(ctx, req)
	if err != nil {
		return err
	}
	logf("%d text ids, frame cap %d, prompt layout %s", len(req.TextIDs), s.Cap(), req.Layout)
	var first time.Duration
	frames := 0
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch ev.Kind {
		case core.EventFrame:
			frames++
			if frames == 1 {
				first = ev.Frame.At
			}
		case core.EventChunk:
			if ev.Chunk.Frames == 0 {
				continue
			}
			msf := 0.0
			if frames > 1 {
				msf = float64(le.Now()-first) / float64(time.Millisecond) / float64(frames-1)
			}
			logf("frames %d/%d  chunk %d (%d frames)  %.1f ms/frame  RTF %.2f", frames, s.Cap(), ev.Chunk.Index, ev.Chunk.Frames, msf, msf/core.FrameMS)
		}
	}
	end := s.End()
	stop()
	<-done
	if end.Reason == core.EndError {
		return end.Err
	}
	pb := core.Playback(s.Submitted(), s.Arrivals())
	logf("ended by %s after %d frames (%.2f s of audio); TTFA %.0f ms, playback start %.0f ms, %d stall(s)",
		end.Reason, end.Frames, float64(end.Frames)*core.FrameMS/1000, pb.TTFAMS, pb.StartMS, pb.Stalls)
	out := codesFile{Model: c.Model, Precision: c.Precision, TextIDs: req.TextIDs, Frames: end.Frames, End: end.Reason.String(),
		Codes: s.Codes(), Playback: playbackJSON{pb.TTFAMS, pb.StartMS, pb.Stalls, pb.StallMS}}
	if err := writeJSON(g.Stdout, c.Out, out); err != nil {
		return err
	}
	fmt.Fprint(g.Stderr, stats.FormatTable(le.attribution(), stats.FrameBudgetMS))
	return nil
}

// writeJSON writes v as one line of JSON to path, or to stdout when path is
// empty.
func writeJSON(stdout io.Writer, path string, v any) error {
	w := stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return json.NewEncoder(w).Encode(v)
}
