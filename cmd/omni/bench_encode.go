package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/omni-tts/omni/bench"
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
)

// benchEncodeCmd times the codec encoder on one clip against the machine's
// fp32-FMA peak measured in the same run.
type benchEncodeCmd struct {
	Codec     string        `default:"synth:real" help:"Codec: a codec or checkpoint directory, or synth:SIZE[@SEED] (${default})."`
	Precision string        `default:"fp32" enum:"fp32,bf16" help:"Encoder precision: ${enum} (${default})."`
	Seconds   float64       `default:"10" help:"Length of the clip to encode, in seconds of 24 kHz audio (${default})."`
	Runs      int           `default:"3" help:"Timed encodes, after the warm-up (${default})."`
	Warmup    int           `default:"1" help:"Untimed warm-up encodes (${default})."`
	Peak      time.Duration `default:"200ms" help:"Duration of each peak measurement; the peak is the best of three before and three after the encodes (the machine may be shared) (${default})."`
	JSON      bool          `name:"json" help:"Print one JSON object on stdout."`
}

// encodeReport is what "omni bench encode --json" prints.
type encodeReport struct {
	Codec            string  `json:"codec"`
	Precision        string  `json:"precision"`
	Threads          int     `json:"threads"`
	Level            string  `json:"level"`
	Seconds          float64 `json:"audio_seconds"`
	Samples          int     `json:"samples"`
	Frames           int     `json:"frames"`
	MACsPerFrame     int64   `json:"macs_per_frame"`
	FMAPeakGFLOPs    float64 `json:"fp32_fma_peak_gflops"`
	PeakNote         string  `json:"peak_note,omitempty"`
	FloorMs          float64 `json:"floor_ms"`
	WeightBytes      int64   `json:"weight_bytes"`
	Ms               float64 `json:"ms"`
	MsMin            float64 `json:"ms_min"`
	MsPerAudioSecond float64 `json:"ms_per_audio_second"`
	GMACs            float64 `json:"gmac_per_s"`
	Efficiency       float64 `json:"efficiency"`
	EfficiencyBest   float64 `json:"efficiency_best"`
	AllocsPerEncode  float64 `json:"allocs_per_encode"`
	// CPUMs is the process CPU time per timed encode (every thread, their
	// spinning included) and EfficiencyCPU the MACs per CPU second against
	// one thread's share of the peak: a loaded machine stretches the wall
	// clock more than it does these.
	CPUMs         float64 `json:"cpu_ms"`
	EfficiencyCPU float64 `json:"efficiency_cpu"`
	LoadAverage   string  `json:"load_average,omitempty"`
	Runs          int     `json:"runs"`
	// StageShare is each stage's share of the timed encodes' time.
	StageShare map[string]float64 `json:"stage_share"`
}

// Run implements "omni bench encode".
func (c *benchEncodeCmd) Run(g *Globals, _ context.Context) error {
	if err := applyKernels(g); err != nil {
		return err
	}
	if c.Runs < 1 || c.Runs > 1000 || c.Warmup < 0 || c.Warmup > 1000 {
		return fmt.Errorf("bench encode: --runs %d must be in [1, 1000] and --warmup %d in [0, 1000]", c.Runs, c.Warmup)
	}
	if !(c.Seconds > 0) || c.Seconds > 600 {
		return fmt.Errorf("bench encode: --seconds %v outside (0, 600]", c.Seconds)
	}
	threads := g.kernelThreads()
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench encode: "+format+"\n", a...) }
	rep := encodeReport{Codec: c.Codec, Precision: c.Precision, Threads: threads, Level: simd.Active().String(),
		Seconds: c.Seconds, Runs: c.Runs}
	measurePeak := func() {
		for i := 0; i < 3; i++ {
			f, err := simd.FMAPeak(threads, c.Peak)
			if err != nil {
				rep.PeakNote = err.Error()
			}
			rep.FMAPeakGFLOPs = max(rep.FMAPeakGFLOPs, f)
		}
	}
	logf("measuring the fp32 FMA peak on %d thread(s), best of 3 × %s", threads, c.Peak)
	measurePeak()

	b := simd.NewBackend(threads)
	defer b.Close()
	logf("loading the encoder of %s in %s", c.Codec, c.Precision)
	e, err := host.OpenCodecEncoder(c.Codec, b, c.Precision)
	if err != nil {
		return err
	}
	defer e.Close()
	cfg := e.Config()
	rep.WeightBytes, _ = e.WeightBytes()
	rep.Samples = int(math.Round(c.Seconds * float64(cfg.SampleRate)))
	if rep.Samples < 1 {
		return fmt.Errorf("bench encode: --seconds %v gives no sample", c.Seconds)
	}
	rep.Frames = cfg.Frames(rep.Samples)
	rep.MACsPerFrame = cfg.MACsPerFrame()
	clip := benchClip(rep.Samples, cfg.SampleRate)
	dst := make([][codec.Codebooks]int32, 0, rep.Frames)
	for i := 0; i < c.Warmup; i++ {
		if _, err := e.AppendEncode(dst[:0], clip); err != nil {
			return err
		}
	}
	var ms []float64
	var stageT [codec.NumEncodeStages]time.Duration
	var last time.Time
	e.SetStageHook(func(s codec.EncodeStage) {
		now := time.Now()
		stageT[s] += now.Sub(last)
		last = now
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := bench.ProcessCPUMs()
	for i := 0; i < c.Runs; i++ {
		t0 := time.Now()
		last = t0
		if _, err := e.AppendEncode(dst[:0], clip); err != nil {
			return err
		}
		ms = append(ms, float64(time.Since(t0))/1e6)
	}
	rep.CPUMs = (bench.ProcessCPUMs() - cpu0) / float64(c.Runs)
	runtime.ReadMemStats(&after)
	e.SetStageHook(nil)
	var total time.Duration
	for _, d := range stageT {
		total += d
	}
	rep.StageShare = map[string]float64{}
	for s, d := range stageT {
		if total > 0 {
			rep.StageShare[codec.EncodeStage(s).String()] = float64(d) / float64(total)
		}
	}
	rep.AllocsPerEncode = float64(after.Mallocs-before.Mallocs) / float64(c.Runs)
	measurePeak()
	rep.Ms = bench.Median(ms)
	rep.MsMin = ms[0]
	for _, v := range ms {
		rep.MsMin = min(rep.MsMin, v)
	}
	rep.MsPerAudioSecond = rep.Ms / c.Seconds
	macs := float64(rep.MACsPerFrame) * float64(rep.Frames)
	rep.GMACs = macs / (rep.Ms / 1e3) / 1e9
	if peak := rep.FMAPeakGFLOPs / 2; peak > 0 {
		rep.FloorMs = macs / (peak * 1e9) * 1e3
		rep.Efficiency = rep.GMACs / peak
		rep.EfficiencyBest = macs / (rep.MsMin / 1e3) / 1e9 / peak
		if rep.CPUMs > 0 {
			rep.EfficiencyCPU = macs / (rep.CPUMs / 1e3) / 1e9 / (peak / float64(max(1, threads)))
		}
	}
	rep.LoadAverage = bench.LoadAverage()
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(g.Stdout, "encoder %s %s, %d thread(s), level %s: %.1f s of audio (%d frames), %.3f GMAC per frame; fp32 FMA peak %.0f GFLOP/s; floor %.1f ms\n",
		c.Codec, c.Precision, threads, rep.Level, c.Seconds, rep.Frames, float64(rep.MACsPerFrame)/1e9, rep.FMAPeakGFLOPs, rep.FloorMs)
	fmt.Fprintf(g.Stdout, "  %.1f ms median of %d (min %.1f), %.2f ms per audio second, %.1f GMAC/s, efficiency %.2f (best %.2f, CPU-time %.2f: %.1f CPU ms), %.1f allocations per encode; load average %s\n",
		rep.Ms, c.Runs, rep.MsMin, rep.MsPerAudioSecond, rep.GMACs, rep.Efficiency, rep.EfficiencyBest, rep.EfficiencyCPU, rep.CPUMs, rep.AllocsPerEncode, rep.LoadAverage)
	fmt.Fprintf(g.Stdout, "    stages:")
	for s := codec.EncodeStage(0); s < codec.NumEncodeStages; s++ {
		fmt.Fprintf(g.Stdout, " %s %.1f%%", s, 100*rep.StageShare[s.String()])
	}
	fmt.Fprintln(g.Stdout)
	return nil
}

// benchClip returns n samples of a deterministic voiced-like signal at
// rate: a 140 Hz harmonic series under a slow envelope, plus noise.
func benchClip(n, rate int) []float32 {
	r := rand.New(rand.NewPCG(7, 11))
	v := make([]float32, n)
	for i := range v {
		t := float64(i) / float64(rate)
		env := 0.5 + 0.5*math.Sin(2*math.Pi*3*t)
		var s float64
		for h := 1; h <= 8; h++ {
			s += math.Sin(2*math.Pi*140*float64(h)*t) / float64(h)
		}
		v[i] = float32(0.2*env*s + 0.01*r.NormFloat64())
	}
	return v
}
