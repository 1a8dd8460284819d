package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/speaker"
)

// benchSpeakerCmd times the speaker encoder (log-mel front end + ECAPA-TDNN)
// on one reference clip against the fp32 FMA peak measured in the same run.
type benchSpeakerCmd struct {
	Model     string        `default:"synth:real" help:"A Base checkpoint directory, or synth:real / synth:tiny (random weights of that geometry) (${default})."`
	EncDim    int           `name:"enc-dim" default:"1024" help:"Embedding size of a synth:real encoder (1024: 0.6B, 2048: 1.7B) (${default})."`
	Precision string        `default:"fp32" enum:"fp32,bf16" help:"Convolution weights: ${enum}; bf16 also reports the cosine similarity of its embedding to fp32's (${default})."`
	Seconds   float64       `default:"10" help:"Length of the clip in seconds at 24 kHz (${default})."`
	Runs      int           `default:"5" help:"Timed embeddings after the warm-up (${default})."`
	Warmup    int           `default:"1" help:"Untimed warm-up embeddings (${default})."`
	Peak      time.Duration `default:"200ms" help:"Duration of each peak measurement; the peak is the best of three before and three after (${default})."`
	JSON      bool          `name:"json" help:"Print one JSON object on stdout."`
}

// speakerReport is what "omni bench speaker --json" prints.
type speakerReport struct {
	Model     string `json:"model"`
	Precision string `json:"precision"`
	// CosineToFP32 is, for a reduced precision, the cosine similarity of
	// the clip's embedding to the fp32 encoder's.
	CosineToFP32   float64 `json:"cosine_to_fp32,omitempty"`
	Threads        int     `json:"threads"`
	Level          string  `json:"level"`
	Seconds        float64 `json:"audio_seconds"`
	MelFrames      int     `json:"mel_frames"`
	MACs           int64   `json:"macs"`
	FMAPeakGFLOPs  float64 `json:"fp32_fma_peak_gflops"`
	PeakNote       string  `json:"peak_note,omitempty"`
	MsPerClip      float64 `json:"ms_per_clip"`
	MsPerClipMin   float64 `json:"ms_per_clip_min"`
	MsPerAudioSec  float64 `json:"ms_per_audio_second"`
	MelMs          float64 `json:"mel_ms"`
	GMACs          float64 `json:"gmac_per_s"`
	FloorMs        float64 `json:"floor_ms"`
	Efficiency     float64 `json:"efficiency"`
	EfficiencyBest float64 `json:"efficiency_best"`
	AllocsPerEmbed float64 `json:"allocs_per_embed"`
	// CPUMs is the process CPU time per timed embedding (every thread, their
	// spinning included) and EfficiencyCPU the MACs per CPU second against
	// one thread's share of the peak: a loaded machine stretches the wall
	// clock more than it does these.
	CPUMs         float64 `json:"cpu_ms"`
	EfficiencyCPU float64 `json:"efficiency_cpu"`
	LoadAverage   string  `json:"load_average,omitempty"`
}

// Run implements "omni bench speaker".
func (c *benchSpeakerCmd) Run(g *Globals, _ context.Context) error {
	if err := applyKernels(g); err != nil {
		return err
	}
	if c.Runs < 1 || c.Warmup < 0 || !(c.Seconds >= 0.1 && c.Seconds <= 600) || c.EncDim < 1 || c.EncDim > 1<<14 {
		return fmt.Errorf("bench speaker: --runs %d must be ≥ 1, --warmup %d ≥ 0, --seconds %v in [0.1, 600], --enc-dim %d in [1, 16384]", c.Runs, c.Warmup, c.Seconds, c.EncDim)
	}
	threads := g.kernelThreads()
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench speaker: "+format+"\n", a...) }
	rep := speakerReport{Model: c.Model, Threads: threads, Level: simd.Active().String(), Seconds: c.Seconds}
	peak := func() {
		for i := 0; i < 3; i++ {
			f, err := simd.FMAPeak(threads, c.Peak)
			if err != nil {
				rep.PeakNote = err.Error()
			}
			rep.FMAPeakGFLOPs = max(rep.FMAPeakGFLOPs, f)
		}
	}
	logf("measuring the fp32 FMA peak on %d thread(s), best of 3 × %s", threads, c.Peak)
	peak()

	b := simd.NewBackend(threads)
	defer b.Close()
	open := func(prec string) (*speaker.Encoder, error) {
		switch c.Model {
		case "synth:real":
			return speaker.NewSynthetic(speaker.DefaultConfig(c.EncDim), 1, b, prec)
		case "synth:tiny":
			return speaker.NewSynthetic(speaker.TinyConfig(), 1, b, prec)
		default:
			if strings.HasPrefix(c.Model, "synth:") {
				return nil, fmt.Errorf("--model %s: the synthetic encoders are synth:real and synth:tiny", c.Model)
			}
			return speaker.Load(c.Model, b, prec)
		}
	}
	rep.Precision = c.Precision
	enc, err := open(c.Precision)
	if err != nil {
		return fmt.Errorf("bench speaker: %w", err)
	}
	defer enc.Close()

	n := int(c.Seconds * speaker.SampleRate)
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n)
	for i := range x { // a voiced-like signal: harmonics under an envelope, plus noise
		t := float64(i) / speaker.SampleRate
		v := 0.3*math.Sin(2*math.Pi*150*t) + 0.15*math.Sin(2*math.Pi*300*t+1) + 0.05*math.Sin(2*math.Pi*2200*t)
		x[i] = float32(v*(0.6+0.4*math.Sin(2*math.Pi*3*t)) + 0.01*r.NormFloat64())
	}
	rep.MelFrames = speaker.MelFrames(n)
	cfg := enc.Config()
	rep.MACs = cfg.MACs(rep.MelFrames)
	dst := make([]float32, enc.Dim())
	for i := 0; i < c.Warmup; i++ {
		if err := enc.Embed(dst, x); err != nil {
			return fmt.Errorf("bench speaker: %w", err)
		}
	}
	times := make([]float64, c.Runs)
	cpu0 := bench.ProcessCPUMs()
	for i := range times {
		t0 := time.Now()
		if err := enc.Embed(dst, x); err != nil {
			return fmt.Errorf("bench speaker: %w", err)
		}
		times[i] = float64(time.Since(t0).Microseconds()) / 1e3
	}
	rep.CPUMs = (bench.ProcessCPUMs() - cpu0) / float64(c.Runs)
	mel := speaker.NewMel()
	buf, _, _ := mel.Compute(nil, x)
	melT := make([]float64, c.Runs)
	for i := range melT {
		t0 := time.Now()
		buf, _, _ = mel.Compute(buf, x)
		melT[i] = float64(time.Since(t0).Microseconds()) / 1e3
	}
	allocs, err := fewestMallocs(3, func() error { return enc.Embed(dst, x) })
	if err != nil {
		return fmt.Errorf("bench speaker: %w", err)
	}
	rep.AllocsPerEmbed = float64(allocs)
	if c.Precision != "fp32" {
		ref, err := open("fp32")
		if err != nil {
			return fmt.Errorf("bench speaker: the fp32 reference: %w", err)
		}
		want := make([]float32, ref.Dim())
		err = ref.Embed(want, x)
		ref.Close()
		if err != nil {
			return fmt.Errorf("bench speaker: the fp32 reference: %w", err)
		}
		var dot, na, nb float64
		for i, v := range dst {
			dot += float64(v) * float64(want[i])
			na += float64(v) * float64(v)
			nb += float64(want[i]) * float64(want[i])
		}
		rep.CosineToFP32 = dot / math.Sqrt(na*nb)
	}
	peak()

	slices.Sort(times)
	slices.Sort(melT)
	rep.MsPerClip, rep.MsPerClipMin = times[len(times)/2], times[0]
	rep.MelMs = melT[len(melT)/2]
	rep.MsPerAudioSec = rep.MsPerClip / c.Seconds
	rep.GMACs = float64(rep.MACs) / (rep.MsPerClip / 1e3) / 1e9
	if rep.FMAPeakGFLOPs > 0 {
		peakGMACs := rep.FMAPeakGFLOPs / 2
		rep.FloorMs = float64(rep.MACs) / (peakGMACs * 1e9) * 1e3
		rep.Efficiency = rep.FloorMs / rep.MsPerClip
		rep.EfficiencyBest = rep.FloorMs / rep.MsPerClipMin
		if rep.CPUMs > 0 {
			rep.EfficiencyCPU = float64(rep.MACs) / (rep.CPUMs / 1e3) / 1e9 / (peakGMACs / float64(max(1, threads)))
		}
	}
	rep.LoadAverage = bench.LoadAverage()
	if rep.CosineToFP32 != 0 {
		logf("%s: cosine similarity to the fp32 embedding %.6f", c.Precision, rep.CosineToFP32)
	}
	logf("%.1f s clip (%d mel frames, %.2f GMAC): median %.1f ms (min %.1f), %.2f ms per audio second, mel %.1f ms; %.1f GMAC/s, efficiency %.2f of the fp32 peak (%.0f GFLOP/s; CPU-time %.2f: %.1f CPU ms); %.0f allocations per embed; load average %s",
		c.Seconds, rep.MelFrames, float64(rep.MACs)/1e9, rep.MsPerClip, rep.MsPerClipMin, rep.MsPerAudioSec, rep.MelMs, rep.GMACs, rep.Efficiency, rep.FMAPeakGFLOPs, rep.EfficiencyCPU, rep.CPUMs, rep.AllocsPerEmbed, rep.LoadAverage)
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return nil
}
