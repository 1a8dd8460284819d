package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/simd"
)

// benchCodecCmd times the codec decoder per frame for 1 and B streams
// against the machine's fp32-FMA and int8 peaks measured in the same run.
type benchCodecCmd struct {
	Codec     string        `default:"synth:real" help:"Codec: a codec or checkpoint directory, or synth:SIZE[@SEED] (${default})."`
	Precision string        `default:"fp32" enum:"fp32,bf16,int8,mixed" help:"Codec precision: ${enum}; bf16 stores the weights in bfloat16 and computes in fp32; mixed is int8 for the layers of at most 32 rows per frame, fp32 for the rest (${default})."`
	Streams   string        `default:"1,4" help:"Stream counts, comma-separated; each step decodes frames-per-call frames of every stream as one batch (${default})."`
	PerCall   string        `name:"frames-per-call" default:"1,4,25" help:"Frames per stream and decode call, comma-separated (the engine's chunker hands 2–25); weights are read once per call (${default})."`
	Frames    int           `default:"6" help:"Timed steps per stream count and frames-per-call, after the warm-up (${default})."`
	Warmup    int           `default:"2" help:"Untimed warm-up steps (${default})."`
	Peak      time.Duration `default:"200ms" help:"Duration of each peak measurement; the peak is the best of three before and three after the frames (the machine may be shared) (${default})."`
	SNR       int           `name:"snr" default:"0" help:"Reduced precision: also decode this many frames of one stream with an fp32 copy of the codec and report the SNR against it (0 = off) (${default})."`
	JSON      bool          `name:"json" help:"Print one JSON object on stdout."`
}

// codecRun is one stream count's figures.
type codecRun struct {
	Streams           int                `json:"streams"`
	FramesPerCall     int                `json:"frames_per_call"`
	MsPerStep         float64            `json:"ms_per_step"`
	MsPerStepMin      float64            `json:"ms_per_step_min"`
	GMACsMin          float64            `json:"gmac_per_s_best"`
	MsPerFrame        float64            `json:"ms_per_frame"`
	RealTimeFactor    float64            `json:"rtf"`
	GMACs             float64            `json:"gmac_per_s"`
	Efficiency        float64            `json:"efficiency"`
	EfficiencyBest    float64            `json:"efficiency_best"`
	StageShare        map[string]float64 `json:"stage_share"`
	StateBytesStream  int64              `json:"state_bytes_per_stream"`
	AllocsPerStepMean float64            `json:"allocs_per_step"`
}

// codecReport is what "omni bench codec --json" prints.
type codecReport struct {
	Codec          string     `json:"codec"`
	Precision      string     `json:"precision"`
	Threads        int        `json:"threads"`
	Level          string     `json:"level"`
	MACsPerFrame   int64      `json:"macs_per_frame"`
	FMAPeakGFLOPs  float64    `json:"fp32_fma_peak_gflops"`
	Int8PeakGMACs  float64    `json:"int8_peak_gmacs"`
	Int8PeakHow    string     `json:"int8_peak_how"`
	PeakNote       string     `json:"peak_note,omitempty"`
	FloorMsFrame   float64    `json:"floor_ms_per_frame"`
	WeightBytes    int64      `json:"weight_bytes"`
	SamplesPerStep int        `json:"samples_per_frame"`
	Runs           []codecRun `json:"runs"`
	SNRFrames      int        `json:"snr_frames,omitempty"`
	SNRdB          float64    `json:"snr_db_vs_fp32,omitempty"`
}

// Run implements "omni bench codec".
func (c *benchCodecCmd) Run(g *Globals, _ context.Context) error {
	if err := applyKernels(g); err != nil {
		return err
	}
	if c.Frames < 1 || c.Warmup < 0 {
		return fmt.Errorf("bench codec: --frames %d must be ≥ 1 and --warmup %d ≥ 0", c.Frames, c.Warmup)
	}
	counts, err := parseCounts("--streams", c.Streams, 256)
	if err != nil {
		return err
	}
	perCall, err := parseCounts("--frames-per-call", c.PerCall, 256)
	if err != nil {
		return err
	}
	threads := g.kernelThreads()
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench codec: "+format+"\n", a...) }
	rep := codecReport{Codec: c.Codec, Precision: c.Precision, Threads: threads, Level: simd.Active().String()}

	measurePeaks := func() {
		for i := 0; i < 3; i++ {
			f, err := simd.FMAPeak(threads, c.Peak)
			if err != nil {
				rep.PeakNote = err.Error()
			}
			q, how, err := simd.Int8Peak(threads, c.Peak)
			if err != nil {
				rep.PeakNote = err.Error()
			}
			rep.FMAPeakGFLOPs, rep.Int8PeakGMACs = max(rep.FMAPeakGFLOPs, f), max(rep.Int8PeakGMACs, q)
			if how != "" {
				rep.Int8PeakHow = how
			}
		}
	}
	logf("measuring the fp32 FMA and int8 peaks on %d thread(s), best of 3 × %s", threads, c.Peak)
	measurePeaks()

	b := simd.NewBackend(threads)
	defer b.Close()
	logf("loading %s in %s", c.Codec, c.Precision)
	m, err := openCodec(c.Codec, b, c.Precision)
	if err != nil {
		return err
	}
	defer m.Close()
	cfg := m.Config()
	rep.MACsPerFrame = cfg.MACsPerFrame()
	rep.SamplesPerStep = m.SamplesPerFrame()
	rep.WeightBytes, _ = m.WeightBytes()

	var stageT [codec.NumStages]time.Duration
	var last time.Time
	m.SetStageHook(func(s codec.Stage) {
		now := time.Now()
		stageT[s] += now.Sub(last)
		last = now
	})
	r := rand.New(rand.NewPCG(1, 2))
	for _, F := range perCall {
		for _, B := range counts {
			run, err := c.timeRun(m, B, F, r, &stageT, &last, logf)
			if err != nil {
				return err
			}
			run.GMACs = float64(rep.MACsPerFrame) * float64(B*F) / (run.MsPerStep / 1e3) / 1e9
			run.GMACsMin = float64(rep.MACsPerFrame) * float64(B*F) / (run.MsPerStepMin / 1e3) / 1e9
			rep.Runs = append(rep.Runs, run)
			logf("%d stream(s) × %d frame(s) per call: median %.2f ms per step (min %.2f), %.2f ms per frame, %.1f GMAC/s",
				B, F, run.MsPerStep, run.MsPerStepMin, run.MsPerFrame, run.GMACs)
		}
	}
	measurePeaks()
	// The floor: the frame's MACs at the peak of the precision that does
	// most of them (int8 for "int8"; fp32 for "fp32" and "mixed").
	peakGMACs := rep.FMAPeakGFLOPs / 2
	if c.Precision == "int8" {
		peakGMACs = rep.Int8PeakGMACs
	}
	if peakGMACs > 0 {
		rep.FloorMsFrame = float64(rep.MACsPerFrame) / (peakGMACs * 1e9) * 1e3
		for i := range rep.Runs {
			rep.Runs[i].Efficiency = rep.Runs[i].GMACs / peakGMACs
			rep.Runs[i].EfficiencyBest = rep.Runs[i].GMACsMin / peakGMACs
		}
	}
	if c.SNR > 0 && c.Precision != "fp32" {
		logf("SNR: %d frames against an fp32 copy", c.SNR)
		m.SetStageHook(nil)
		if rep.SNRdB, err = codecSNR(m, c.Codec, b, c.SNR, r); err != nil {
			return err
		}
		rep.SNRFrames = c.SNR
		logf("SNR %.2f dB over %d frames", rep.SNRdB, c.SNR)
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(g.Stdout, "codec %s %s, %d thread(s), level %s: %.3f GMAC per frame; fp32 FMA peak %.0f GFLOP/s, int8 peak %.0f GMAC/s (%s); floor %.2f ms per frame\n",
		c.Codec, c.Precision, threads, rep.Level, float64(rep.MACsPerFrame)/1e9, rep.FMAPeakGFLOPs, rep.Int8PeakGMACs, rep.Int8PeakHow, rep.FloorMsFrame)
	for _, run := range rep.Runs {
		fmt.Fprintf(g.Stdout, "  %d stream(s) × %d frame(s) per call: %.2f ms/step (min %.2f), %.2f ms/frame (RTF %.3f), %.1f GMAC/s, efficiency %.2f (best %.2f)\n",
			run.Streams, run.FramesPerCall, run.MsPerStep, run.MsPerStepMin, run.MsPerFrame, run.RealTimeFactor, run.GMACs, run.Efficiency, run.EfficiencyBest)
		fmt.Fprintf(g.Stdout, "    stages:%s\n", formatShares(run.StageShare))
	}
	if rep.SNRFrames > 0 {
		fmt.Fprintf(g.Stdout, "  SNR against fp32: %.2f dB over %d frames\n", rep.SNRdB, rep.SNRFrames)
	}
	return nil
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

// formatShares lists stage shares in stage order as " name 12.3%".
func formatShares(share map[string]float64) string {
	var sb strings.Builder
	for s := codec.Stage(0); s < codec.NumStages; s++ {
		if v, ok := share[s.String()]; ok {
			fmt.Fprintf(&sb, " %s %.1f%%", s, 100*v)
		}
	}
	return sb.String()
}

// timeRun decodes F frames of each of B new streams per step (Warmup
// untimed steps, then Frames timed ones) and returns the run's times,
// stage shares, state bytes and allocations; the caller fills in GMAC/s.
func (c *benchCodecCmd) timeRun(m *codec.Model, B, F int, r *rand.Rand, stageT *[codec.NumStages]time.Duration, last *time.Time, logf func(string, ...any)) (codecRun, error) {
	cfg := m.Config()
	streams := make([]*codec.Stream, B)
	codes := make([][][codec.Codebooks]int32, B)
	pcm := make([][]float32, B)
	defer func() {
		for _, s := range streams {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i := range streams {
		var err error
		if streams[i], err = m.NewStream(); err != nil {
			return codecRun{}, err
		}
		codes[i] = make([][codec.Codebooks]int32, F)
		pcm[i] = make([]float32, F*m.SamplesPerFrame())
	}
	step := func() error {
		for i := range codes {
			for t := range codes[i] {
				for k := range codes[i][t] {
					codes[i][t][k] = int32(r.IntN(cfg.CodebookSize))
				}
			}
		}
		*last = time.Now()
		return m.DecodeBatch(streams, codes, pcm)
	}
	logf("%d stream(s) × %d frame(s) per call: %d warm-up and %d timed steps", B, F, c.Warmup, c.Frames)
	for i := 0; i < c.Warmup; i++ {
		if err := step(); err != nil {
			return codecRun{}, err
		}
	}
	*stageT = [codec.NumStages]time.Duration{}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	steps := make([]float64, c.Frames)
	for i := 0; i < c.Frames; i++ {
		t0 := time.Now()
		if err := step(); err != nil {
			return codecRun{}, err
		}
		steps[i] = time.Since(t0).Seconds() * 1e3
	}
	runtime.ReadMemStats(&ms1)
	slices.Sort(steps)
	perStep := steps[len(steps)/2] // the median step; the machine may be shared
	frames := float64(B * F)
	run := codecRun{
		Streams: B, FramesPerCall: F, MsPerStep: perStep, MsPerStepMin: steps[0], MsPerFrame: perStep / frames,
		RealTimeFactor:    perStep / frames / (1e3 * float64(m.SamplesPerFrame()) / float64(cfg.SampleRate)),
		StageShare:        map[string]float64{},
		StateBytesStream:  streams[0].StateBytes(),
		AllocsPerStepMean: float64(ms1.Mallocs-ms0.Mallocs) / float64(c.Frames),
	}
	var total time.Duration
	for _, d := range stageT {
		total += d
	}
	for s := codec.Stage(0); s < codec.NumStages; s++ {
		if stageT[s] > 0 {
			run.StageShare[s.String()] = float64(stageT[s]) / float64(total)
		}
	}
	return run, nil
}

// codecSNR decodes frames random frames of one stream with m and with an
// fp32 copy of the same codec, and returns 10·log10(Σref² / Σ(ref − got)²).
func codecSNR(m *codec.Model, spec string, b codec.Backend, frames int, r *rand.Rand) (float64, error) {
	ref, err := openCodec(spec, b, "fp32")
	if err != nil {
		return 0, err
	}
	defer ref.Close()
	s, err := m.NewStream()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	rs, err := ref.NewStream()
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	spf := m.SamplesPerFrame()
	got, want := make([]float32, spf), make([]float32, spf)
	code := make([][codec.Codebooks]int32, 1)
	var sig, noise float64
	for i := 0; i < frames; i++ {
		for k := range code[0] {
			code[0][k] = int32(r.IntN(m.Config().CodebookSize))
		}
		if err := s.Decode(code, got); err != nil {
			return 0, err
		}
		if err := rs.Decode(code, want); err != nil {
			return 0, err
		}
		for j := range got {
			d := float64(want[j]) - float64(got[j])
			sig += float64(want[j]) * float64(want[j])
			noise += d * d
		}
	}
	return 10 * math.Log10(sig/noise), nil
}
