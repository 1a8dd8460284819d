package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/stats"
)

// SpeechReport is what "omni bench e2e" prints with audio (the default):
// N streams submitted together, generated and decoded by the engine's
// codec stage, each read by its own player goroutine as the audio comes.
type SpeechReport struct {
	CPU            string `json:"cpu"` // CPUName
	Model          string `json:"model"`
	Precision      string `json:"precision"`
	CodecPrecision string `json:"codec_precision"`
	ModelThreads   int    `json:"model_threads"`
	CodecThreads   int    `json:"codec_threads"`
	Streams        int    `json:"streams"`
	Frames         int    `json:"frames"`
	// CloneFrames is SpeechOptions.CloneFrames: the reference frames of
	// every stream's in-context clone (0: the model's own voice).
	CloneFrames int `json:"clone_frames,omitempty"`

	// GenMsPerStep is the generation stage's time per decode step
	// (core.step_ms minus the time the step waited on a full hop queue).
	GenMsPerStep float64 `json:"gen_ms_per_step"`
	// CodecMsPerStep is the codec stage's decode time per step's worth of
	// audio (Σ codec.call_ms ÷ frames per stream: one frame of every
	// stream); CodecMsPerFrame the same per frame of one stream.
	CodecMsPerStep  float64 `json:"codec_ms_per_step"`
	CodecMsPerFrame float64 `json:"codec_ms_per_frame"`
	// WallMS is submit → the last sample delivered; RTF is WallMS over
	// one stream's audio (every stream has the same length), RTFSteady
	// the same from each stream's first audio to its last.
	WallMS    float64 `json:"wall_ms"`
	RTF       float64 `json:"rtf"`
	RTFSteady float64 `json:"rtf_steady"`

	TTFAMsP50 float64 `json:"ttfa_ms_p50"`
	TTFAMsP95 float64 `json:"ttfa_ms_p95"`
	// Stalls and StallMs are the underruns of a player starting at its
	// first audio (core.Playback, from audio delivered), all streams.
	Stalls  int     `json:"stalls"`
	StallMs float64 `json:"stall_ms"`

	// GenBusy and CodecBusy are the shares of the wall time each stage
	// was working (generation: stepping, not blocked on the hop; codec:
	// inside DecodeBatch); CPUCores is the process's CPU time over the
	// wall time (cores in use on average).
	GenBusy   float64 `json:"gen_busy"`
	CodecBusy float64 `json:"codec_busy"`
	CPUCores  float64 `json:"cpu_cores"`

	// ReadGBps is the DRAM read rate measured before and after the timed
	// pass (median; 0 without SpeechOptions.Floor); GenFloorMsPerStep the
	// weight bytes of one decode step (talker + predictor, read once for
	// every stream) at that rate, and GenEfficiency that floor over
	// GenMsPerStep. The machine's rate swings: compare runs by these.
	ReadGBps          float64 `json:"read_gbps,omitempty"`
	GenFloorMsPerStep float64 `json:"gen_floor_ms_per_step,omitempty"`
	GenEfficiency     float64 `json:"gen_efficiency,omitempty"`

	// TTFA is the median attribution of time to first audio.
	TTFA        []TTFARow   `json:"ttfa"`
	Attribution []stats.Row `json:"attribution"`
}

// TTFARow is one segment of time to first audio (median over streams).
type TTFARow struct {
	Stage string  `json:"stage"`
	MS    float64 `json:"ms"`
}

// SpeechOptions is one measurement with audio.
type SpeechOptions struct {
	Model          string
	CodecPrecision string
	ModelThreads   int
	CodecThreads   int
	Streams        int
	Frames         int // per stream, ≥ 2 (EOS masked until then)
	Warmup         int // frames of a warm-up pass (none below 2)
	TextLen        int
	// CloneFrames, when > 0, makes every stream an in-context clone of
	// that many reference frames (SyntheticClone; a Base model), with a
	// different reference for every stream and pass: the timed pass then
	// pays each reference's priming, as a voice's first request does.
	CloneFrames int
	// Floor, when set, measures the streaming-read rate before and after
	// the timed pass (on the model's threads): the report then holds the
	// generation floor of that run.
	Floor *FloorMeter
}

// Speech runs a warm-up pass, then the timed pass on e (an engine with a
// codec, not yet running), with rec its step-stats recorder (nil: no
// attribution).
func Speech(ctx context.Context, e host.Engine, rec *stats.Recorder, o SpeechOptions, logf func(string, ...any)) (*SpeechReport, error) {
	if o.Streams < 1 || o.Frames < 2 || o.TextLen < 1 || o.CloneFrames < 0 {
		return nil, fmt.Errorf("bench: speech of %d streams, %d frames, %d text ids, clones of %d reference frames", o.Streams, o.Frames, o.TextLen, o.CloneFrames)
	}
	if ids := e.IDs(); o.CloneFrames > 0 && ids.ModelKind != "base" {
		return nil, fmt.Errorf("bench: clones of %d reference frames: voice cloning needs a Base model, this one is %q", o.CloneFrames, ids.ModelKind)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- e.Run(runCtx) }()
	defer func() { stop(); <-ran }()
	if o.Warmup >= 2 {
		logf("warm-up: %d stream(s) × %d frames with audio", o.Streams, o.Warmup)
		if _, _, err := speechPass(ctx, e, o, o.Warmup, 0); err != nil {
			return nil, err
		}
	}
	var before Floor
	if o.Floor != nil {
		before = o.Floor.Measure()
	}
	rec.Reset()
	logf("timed: %d stream(s) × %d frames with audio", o.Streams, o.Frames)
	cpu0 := ProcessCPUMs()
	t0 := time.Now()
	ss, last, err := speechPass(ctx, e, o, o.Frames, 1)
	if err != nil {
		return nil, err
	}
	wall := float64(last.Sub(t0).Microseconds()) / 1e3
	cpu := ProcessCPUMs() - cpu0
	var fr Floor
	if o.Floor != nil {
		fr = MedianFloor(before, o.Floor.Measure())
	}
	w := host.WeightsOf(e)
	if w == nil {
		return nil, fmt.Errorf("bench: the engine shows no weights (pass the engine host.Open returned)")
	}
	audioMS := float64(o.Frames) * core.FrameMS
	r := &SpeechReport{CPU: CPUName(),
		Model: o.Model, Precision: w.Precision.String(), CodecPrecision: o.CodecPrecision,
		ModelThreads: o.ModelThreads, CodecThreads: o.CodecThreads, Streams: o.Streams, Frames: o.Frames,
		CloneFrames: o.CloneFrames, WallMS: wall, RTF: wall / audioMS, CPUCores: cpu / wall,
	}
	var ttfa, steady []float64
	segs := make([][]float64, len(ttfaStages))
	for _, s := range ss {
		p := core.Playback(s.Submitted(), s.Arrivals())
		ttfa = append(ttfa, p.TTFAMS)
		r.Stalls += p.Stalls
		r.StallMs += p.StallMS
		if a := s.Arrivals(); len(a) > 0 {
			steady = append(steady, float64((a[len(a)-1].At-a[0].At).Microseconds())/1e3/(audioMS-a[0].AudioMS))
		}
		for i, v := range ttfaSegments(s.Timeline()) {
			segs[i] = append(segs[i], v)
		}
	}
	r.TTFAMsP50, r.TTFAMsP95 = Median(ttfa), quantileOf(ttfa, 0.95)
	r.RTFSteady = Median(steady)
	for i, name := range ttfaStages {
		r.TTFA = append(r.TTFA, TTFARow{Stage: name, MS: Median(segs[i])})
	}
	if rec != nil {
		sum := rec.Summaries()
		r.Attribution = stats.Attribution(stats.Roles{"engine": sum}, stats.FrameBudgetMS)
		step, put, call := sum["core.step_ms"], sum["hop.put_ms"], sum["codec.call_ms"]
		if step.Count > 0 {
			r.GenMsPerStep = (step.SumMS - put.SumMS) / float64(step.Count)
			r.GenBusy = (step.SumMS - put.SumMS) / wall
		}
		r.CodecMsPerStep = call.SumMS / float64(o.Frames)
		r.CodecMsPerFrame = r.CodecMsPerStep / float64(o.Streams)
		r.CodecBusy = call.SumMS / wall
	}
	if fr.ReadGBps > 0 {
		tb, pb, err := weightBytes(w)
		if err != nil {
			return nil, err
		}
		r.ReadGBps = fr.ReadGBps
		r.GenFloorMsPerStep = FloorMS(tb+pb, fr.ReadGBps)
		if r.GenMsPerStep > 0 {
			r.GenEfficiency = Efficiency(r.GenFloorMsPerStep, r.GenMsPerStep)
		}
	}
	return r, nil
}

// ttfaStages names the segments ttfaSegments returns.
var ttfaStages = []string{"queueing", "prefill", "first frames", "hop", "first decode", "hand-off"}

// ttfaSegments splits a stream's time to first audio by stage.
func ttfaSegments(t core.Timeline) []float64 {
	d := func(a, b time.Duration) float64 { return float64((b - a).Microseconds()) / 1e3 }
	return []float64{d(t.Submitted, t.Admitted), d(t.Admitted, t.Prefilled), d(t.Prefilled, t.FirstCut),
		d(t.FirstCut, t.FirstGot), d(t.FirstGot, t.FirstDecoded), d(t.FirstDecoded, t.FirstRead)}
}

// speechPass submits o.Streams seeded requests of frames frames each (pass
// numbers the pass, so that clone references differ between passes),
// reads each with its own goroutine (a player taking audio as it comes)
// and returns the ended streams and when the last sample was read.
func speechPass(ctx context.Context, e host.Engine, o SpeechOptions, frames, pass int) ([]*core.Stream, time.Time, error) {
	var ss []*core.Stream
	for i := range o.Streams {
		text := make([]int32, o.TextLen)
		for j := range text {
			text[j] = int32(1 + (i*31+j*7)%97)
		}
		r := core.NewRequest(text)
		r.ID = fmt.Sprintf("speech%d", i)
		r.Talker.Seed, r.Predictor.Seed = core.Seed(int64(1000+i)), core.Seed(int64(2000+i))
		r.Talker.MinTokens, r.MaxFrames = frames, frames
		if o.CloneFrames > 0 {
			c, err := SyntheticClone(e.IDs(), o.CloneFrames, uint64(pass*o.Streams+i))
			if err != nil {
				return nil, time.Time{}, err
			}
			r.Clone = c
		}
		s, err := e.Submit(ctx, r)
		if err != nil {
			return nil, time.Time{}, err
		}
		ss = append(ss, s)
	}
	var mu sync.Mutex
	var last time.Time
	var firstErr error
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples := 0
			for {
				ev, err := s.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					mu.Lock()
					firstErr = cmpOr(firstErr, err)
					mu.Unlock()
					return
				}
				if ev.Kind == core.EventChunk {
					samples += len(ev.Chunk.PCM)
				}
				if ev.Kind == core.EventEnd && (ev.End.Frames != frames || samples != frames*1920) {
					mu.Lock()
					firstErr = cmpOr(firstErr, fmt.Errorf("bench: stream %s ended %v after %d frames with %d samples, want %d frames × 1920 (%v)",
						s.ID(), ev.End.Reason, ev.End.Frames, samples, frames, ev.End.Err))
					mu.Unlock()
				}
			}
			mu.Lock()
			if t := time.Now(); t.After(last) {
				last = t
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return ss, last, firstErr
}

// cmpOr returns a unless it is nil, else b.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// WriteText writes the report and its tables.
func (r *SpeechReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "e2e with audio %s %s + codec %s, %d stream(s) × %d frames, %d model + %d codec thread(s)\n",
		r.Model, r.Precision, r.CodecPrecision, r.Streams, r.Frames, r.ModelThreads, r.CodecThreads)
	if r.CloneFrames > 0 {
		fmt.Fprintf(w, "  every stream an in-context clone of %d reference frames (its own reference: primed in the run)\n", r.CloneFrames)
	}
	fmt.Fprintf(w, "  generation %.1f ms/step, codec %.1f ms/step (%.1f ms per frame of one stream)\n", r.GenMsPerStep, r.CodecMsPerStep, r.CodecMsPerFrame)
	fmt.Fprintf(w, "  RTF with audio %.3f (submit → last sample %.0f ms for %.2f s of audio per stream), steady %.3f\n", r.RTF, r.WallMS, float64(r.Frames)*core.FrameMS/1e3, r.RTFSteady)
	fmt.Fprintf(w, "  TTFA p50 %.0f ms, p95 %.0f ms; %d stall(s) after the first audio (%.0f ms), at playback\n", r.TTFAMsP50, r.TTFAMsP95, r.Stalls, r.StallMs)
	fmt.Fprintf(w, "  busy: generation %.0f%%, codec %.0f%% of the wall time; CPU %.2f cores\n", 100*r.GenBusy, 100*r.CodecBusy, r.CPUCores)
	if r.ReadGBps > 0 {
		fmt.Fprintf(w, "  generation floor %.1f ms/step (weights at %.1f GB/s, measured around the run): efficiency %.2f\n", r.GenFloorMsPerStep, r.ReadGBps, r.GenEfficiency)
	}
	fmt.Fprintf(w, "| time to first audio (p50) | ms |\n|---|---|\n")
	for _, t := range r.TTFA {
		fmt.Fprintf(w, "| %s | %.1f |\n", t.Stage, t.MS)
	}
	fmt.Fprint(w, stats.FormatTable(r.Attribution, stats.FrameBudgetMS))
}
