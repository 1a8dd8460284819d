package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/stats"
)

// engineFlags are the flags every engine-driving command shares.
type engineFlags struct {
	Model         string `default:"${default_model}" help:"Model: a checkpoint directory or synth:SIZE[+outliers][@SEED] (${default}; say --voice: the voice's own model; say --ref-audio: ${default_model}-base)."`
	Precision     string `default:"int8" enum:"fp32,int8,int8-fp32head,int4,int4-mlp,int4-gateup,int4-late" help:"Matrix precision: ${enum} (${default})."`
	DeployProfile string `name:"deploy-profile" default:"auto" help:"Deploy profile: auto, edge, a user profile name or a JSON file (${default}); gives the KV budget and the chunk ramp." env:"OMNI_DEPLOY_PROFILE"`
	HopDepth      int    `name:"hop-depth" default:"4" help:"Chunks the codec-stage queue holds, 1..${max_hop_depth} (${default})."`
	FramesPerTok  int    `name:"frames-per-token" default:"5" help:"Derived frame cap: frames allowed per text token, 1..${max_frames} (${default})."`
	FrameFloor    int    `name:"frame-floor" default:"64" help:"Derived frame cap: at least this many frames, 1..${max_frames} (${default})."`
	MaxNewTokens  int    `name:"max-new-tokens" default:"8192" help:"Absolute frame cap of any request, 1..${max_frames} (${default})."`
	StatsDir      string `name:"stats-dir" help:"Keep the step-stats dump here (default: a temporary directory, or $OMNI_STEP_STATS_DIR)." env:"OMNI_STEP_STATS_DIR"`
	ChunkAdaptive *bool  `name:"chunk-adaptive" negatable:"" help:"Adaptive chunk sizing (default: the deploy profile's; auto says yes, edge no)."`
	Codec         string `help:"Codec for the audio: a codec or checkpoint directory, or synth:SIZE[@SEED] (default: the model's own)."`
	CodecPrec     string `name:"codec-precision" default:"auto" help:"${codec_precision_help} (${default})."`
	CodecThreads  int    `name:"codec-threads" help:"Threads the codec stage decodes on while generation runs; it takes all of --threads while generation waits (default: the deploy profile's codec_threads)."`
	cacheFlags

	// audio is set by the command: decode the codes into PCM in the engine.
	audio bool
}

// openedEngine is an engine host.Open built from the engine flags, with
// its step-stats recorder (native mode) and everything opened for it.
type openedEngine struct {
	host.Engine
	flags   *engineFlags
	prec    predictor.Precision
	threads int
	batch   int
	// codecThreads is the codec stage's pool size (when audio is on)
	codecThreads int
	kvBudget     int64           // the engine's KV budget in bytes (0 = none)
	rec          *stats.Recorder // nil in WASI mode: the guest keeps no dump
	cleanup      func()          // closes the source, removes a temporary stats dir
}

// hostOptions is the one options builder of the engine commands: it
// checks the flags, resolves the model spec once (host.ResolveModel) and
// opens its weights, resolves the deploy profile for its geometry and
// returns the host.Options of an engine in mode, with the source opened
// (the caller closes it) and the resolved profile. maxBatch > 0 overrides
// the profile's max_num_seqs.
func (f *engineFlags) hostOptions(g *Globals, maxBatch int, mode host.Mode) (host.Options, deploy.Profile, error) {
	if err := f.check(); err != nil {
		return host.Options{}, deploy.Profile{}, err
	}
	cp, err := resolveCodecPrecision(f.CodecPrec)
	if err != nil {
		return host.Options{}, deploy.Profile{}, err
	}
	f.CodecPrec = cp
	prec, err := predictor.ParsePrecision(f.Precision)
	if err != nil {
		return host.Options{}, deploy.Profile{}, err
	}
	files, err := host.ResolveModel(f.Model)
	if err != nil {
		return host.Options{}, deploy.Profile{}, err
	}
	src, err := files.OpenSource()
	if err != nil {
		return host.Options{}, deploy.Profile{}, err
	}
	prof, err := f.resolveProfile(src.Config(), maxBatch)
	if err != nil {
		src.Close()
		return host.Options{}, deploy.Profile{}, err
	}
	if maxBatch <= 0 {
		maxBatch = prof.MaxNumSeqs
	}
	return host.Options{Model: f.Model, Files: &files, Source: src, Precision: prec, Mode: mode, MaxBatch: maxBatch,
		Threads: g.kernelThreads(prof.ModelThreads), Engine: f.engineConfig(prof), Stderr: g.Stderr, WeightCache: f.weightCache(g),
		Codec: host.CodecSettings{Off: !f.audio, Spec: f.Codec, Precision: f.CodecPrec, Threads: f.codecThreads(prof)}}, prof, nil
}

// openEngine opens the engine the flags describe (hostOptions) in mode
// through host.Open, the one way every command builds one. Natively the
// engine records step stats in --stats-dir (or a temporary directory
// Close removes).
func (f *engineFlags) openEngine(ctx context.Context, g *Globals, maxBatch int, mode host.Mode, logf func(string, ...any)) (*openedEngine, error) {
	o, _, err := f.hostOptions(g, maxBatch, mode)
	if err != nil {
		return nil, err
	}
	oe := &openedEngine{flags: f, prec: o.Precision, threads: o.Threads, batch: o.MaxBatch}
	var tmp string
	oe.cleanup = func() {
		o.Source.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	oe.codecThreads, oe.kvBudget = o.Codec.Threads, o.Engine.KVBudgetBytes
	if mode == host.Native {
		dir := f.StatsDir
		if dir == "" {
			if tmp, err = os.MkdirTemp("", "omni-stats-"); err != nil {
				oe.cleanup()
				return nil, err
			}
			dir = tmp
		}
		if oe.rec, err = stats.New(stats.Config{Dir: dir, Role: "engine"}); err != nil {
			oe.cleanup()
			return nil, err
		}
		o.Engine.Stats, o.Engine.Sink = oe.rec, &core.ChunkLog{}
	}
	t0 := time.Now()
	if f.audio {
		logf("loading %s in %s on %d thread(s) + codec %s on %d thread(s), kernels %s, control core %s", f.Model, o.Precision, o.Threads, f.CodecPrec, o.Codec.Threads, simd.Active(), mode)
	} else {
		logf("loading %s in %s on %d thread(s), kernels %s, control core %s", f.Model, o.Precision, o.Threads, simd.Active(), mode)
	}
	if oe.Engine, err = host.Open(ctx, o); err != nil {
		oe.rec.Close()
		oe.cleanup()
		return nil, err
	}
	logf("loaded in %.1f s", time.Since(t0).Seconds())
	return oe, nil
}

// codecThreads returns the codec stage's thread count: --codec-threads,
// else the profile's codec_threads, else 1.
func (f *engineFlags) codecThreads(prof deploy.Profile) int {
	if f.CodecThreads > 0 {
		return f.CodecThreads
	}
	return max(1, prof.CodecThreads)
}

// Close closes the engine, then the recorder, the source and a temporary
// stats directory.
func (oe *openedEngine) Close() error {
	err := oe.Engine.Close()
	if oe.rec != nil {
		err = errors.Join(err, oe.rec.Close())
	}
	oe.cleanup()
	return err
}

// attribution returns the engine's counters as attribution rows (share of
// the 80 ms frame); nil without a recorder.
func (oe *openedEngine) attribution() []stats.Row {
	if oe.rec == nil {
		return nil
	}
	return stats.Attribution(stats.Roles{"engine": oe.rec.Summaries()}, stats.FrameBudgetMS)
}
