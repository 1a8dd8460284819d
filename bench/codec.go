package bench

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/simd"
)

// CodecOptions say what "omni bench codec" times.
type CodecOptions struct {
	Codec      string        // a codec or checkpoint directory, or synth:SIZE[@SEED]
	Precisions []string      // codec precisions, each timed in turn
	Streams    []int         // stream counts
	PerCall    []int         // frames per stream and decode call
	Steps      int           // timed steps per repeat
	Warmup     int           // untimed steps before each repeat
	Repeats    int           // repeats per stream count and frames per call (the median is reported)
	Peak       time.Duration // duration of one peak measurement
	SNRFrames  int           // frames of one stream decoded against an fp32 copy (0: no SNR)
	Threads    int
}

// CodecRun is one stream count and frames-per-call of one precision.
type CodecRun struct {
	Streams       int `json:"streams"`
	FramesPerCall int `json:"frames_per_call"`
	// MsPerStep is the median over the repeats of each repeat's median step.
	MsPerStep    float64 `json:"ms_per_step"`
	MsPerStepMin float64 `json:"ms_per_step_min"`
	// MsPerStreamFrame is MsPerStep over streams × frames per call: the
	// wall time of one frame of one stream.
	MsPerStreamFrame float64 `json:"ms_per_stream_frame"`
	RealTimeFactor   float64 `json:"rtf"`
	GMACs            float64 `json:"gmac_per_s"`
	// Efficiency is GMACs over the peak of the precision (PeakGMACs).
	Efficiency     float64 `json:"efficiency"`
	EfficiencyBest float64 `json:"efficiency_best"`
	// CPUMsPerStreamFrame is the process CPU time per stream-frame, and
	// EfficiencyCPU the MACs per CPU second over one thread's peak: the
	// figure a loaded machine (other processes taking cores) leaves intact.
	CPUMsPerStreamFrame float64            `json:"cpu_ms_per_stream_frame"`
	EfficiencyCPU       float64            `json:"efficiency_cpu"`
	StageShare          map[string]float64 `json:"stage_share"`
	StateBytesStream    int64              `json:"state_bytes_per_stream"`
	AllocsPerStep       float64            `json:"allocs_per_step"`
}

// CodecPrecisionReport is one precision's figures.
type CodecPrecisionReport struct {
	Precision string `json:"precision"`
	// PeakGMACs is the multiply-accumulate peak of the instructions the
	// precision computes with, on the run's threads, measured in the same
	// run (best of three before and three after the frames): fp32 FMA for
	// fp32 and mixed (whose fp32 layers do most of the MACs), the bf16 dot
	// product for bf16 where the kernels use it, VNNI (or its AVX2
	// stand-in) for int8.
	PeakGMACs          float64    `json:"peak_gmacs"`
	PeakHow            string     `json:"peak_how"`
	FloorMsStreamFrame float64    `json:"floor_ms_per_stream_frame"`
	WeightBytes        int64      `json:"weight_bytes"`
	SNRFrames          int        `json:"snr_frames,omitempty"`
	SNRdB              float64    `json:"snr_db_vs_fp32,omitempty"`
	Runs               []CodecRun `json:"runs"`
}

// CodecReport is what "omni bench codec --json" prints.
type CodecReport struct {
	CPU             string                 `json:"cpu"` // CPUName
	Codec           string                 `json:"codec"`
	Threads         int                    `json:"threads"`
	Level           string                 `json:"level"`
	MACsPerFrame    int64                  `json:"macs_per_frame"`
	SamplesPerFrame int                    `json:"samples_per_frame"`
	LoadAvgBefore   string                 `json:"loadavg_before,omitempty"`
	LoadAvgAfter    string                 `json:"loadavg_after,omitempty"`
	PeakNote        string                 `json:"peak_note,omitempty"`
	Precisions      []CodecPrecisionReport `json:"precisions"`
}

// Codec times the codec decoder per step for every precision, stream count
// and frames per call, against the peak of each precision measured in the
// same run.
func Codec(o CodecOptions, logf func(string, ...any)) (*CodecReport, error) {
	if o.Steps < 1 || o.Warmup < 0 || o.Repeats < 1 || len(o.Precisions) == 0 || len(o.Streams) == 0 || len(o.PerCall) == 0 {
		return nil, fmt.Errorf("bench codec: steps %d (≥ 1), warmup %d (≥ 0), repeats %d (≥ 1), %d precisions, %d stream counts, %d frames-per-call (each ≥ 1)",
			o.Steps, o.Warmup, o.Repeats, len(o.Precisions), len(o.Streams), len(o.PerCall))
	}
	rep := &CodecReport{CPU: CPUName(), Codec: o.Codec, Threads: o.Threads, Level: simd.Active().String(), LoadAvgBefore: LoadAverage()}
	b := simd.NewBackend(o.Threads)
	defer b.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for _, prec := range o.Precisions {
		p, err := codecPrecision(o, prec, b, r, rep, logf)
		if err != nil {
			return nil, err
		}
		rep.Precisions = append(rep.Precisions, *p)
	}
	rep.LoadAvgAfter = LoadAverage()
	return rep, nil
}

// codecPeak measures the peak of precision prec on threads (best of three
// runs of d): GMAC/s and the instruction. A spec mixing layer precisions
// (bf16+res=int8) gets the rate at which each family's MACs at its own
// precision's peak would take the frame: Σ MACs / Σ (MACs_f / peak_f).
func codecPeak(prec string, cfg *codec.Config, threads int, d time.Duration) (float64, string, error) {
	fam, err := codec.FamilyPrecisions(prec)
	if err != nil {
		return 0, "", err
	}
	uniform := true // also for "mixed" (fam nil)
	for _, q := range fam {
		uniform = uniform && q == fam[codec.FamRes]
	}
	if uniform {
		if fam != nil {
			prec = fam[codec.FamRes]
		}
		return layerPeak(prec, threads, d)
	}
	macs := cfg.MACsPerFamily()
	peaks := map[string]float64{}
	hows := map[string]string{}
	var total, secs float64
	for _, f := range codec.Families() {
		q := fam[f]
		if _, ok := peaks[q]; !ok {
			p, how, err := layerPeak(q, threads, d)
			if err != nil {
				return 0, "", err
			}
			peaks[q], hows[q] = p, how
		}
		total += float64(macs[f])
		secs += float64(macs[f]) / peaks[q]
	}
	var parts []string
	for _, q := range []string{"int8", "bf16", "fp32"} {
		var m float64
		for _, f := range codec.Families() {
			if fam[f] == q {
				m += float64(macs[f])
			}
		}
		if m > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f GMAC/s on %.0f%% of the MACs", hows[q], peaks[q], 100*m/total))
		}
	}
	return total / secs, "by family: " + strings.Join(parts, ", "), nil
}

// layerPeak measures the peak of one layer precision (fp32, bf16, int8;
// "mixed" counts as fp32) on threads, best of three runs of d.
func layerPeak(prec string, threads int, d time.Duration) (float64, string, error) {
	var best float64
	var how string
	for i := 0; i < 3; i++ {
		var p float64
		var err error
		switch prec {
		case "int8":
			p, how, err = simd.Int8Peak(threads, d)
		case "bf16":
			p, how, err = simd.ConvBF16Peak(threads, d)
		default:
			p, err = simd.FMAPeak(threads, d)
			p, how = p/2, "fp32 fma"
		}
		if err != nil {
			return 0, "", err
		}
		best = max(best, p)
	}
	return best, how, nil
}

// codecPrecision times one precision.
func codecPrecision(o CodecOptions, prec string, b *simd.Backend, r *rand.Rand, rep *CodecReport, logf func(string, ...any)) (*CodecPrecisionReport, error) {
	out := &CodecPrecisionReport{Precision: prec}
	logf("loading %s in %s", o.Codec, prec)
	m, err := host.OpenCodec(o.Codec, b, prec)
	if err != nil {
		return nil, fmt.Errorf("bench codec: %s: %w", prec, err)
	}
	defer m.Close()
	cfg := m.Config()
	logf("%s: measuring its peak on %d thread(s), best of 3 × %s", prec, o.Threads, o.Peak)
	peak, how, err := codecPeak(prec, &cfg, o.Threads, o.Peak)
	if err != nil {
		rep.PeakNote = err.Error()
	}
	rep.MACsPerFrame, rep.SamplesPerFrame = cfg.MACsPerFrame(), m.SamplesPerFrame()
	out.WeightBytes, _ = m.WeightBytes()

	var stageT [codec.NumStages]time.Duration
	var last time.Time
	m.SetStageHook(func(s codec.Stage) {
		now := time.Now()
		stageT[s] += now.Sub(last)
		last = now
	})
	for _, F := range o.PerCall {
		for _, B := range o.Streams {
			run, err := timeCodec(o, m, B, F, r, &stageT, &last, logf)
			if err != nil {
				return nil, err
			}
			macs := float64(rep.MACsPerFrame) * float64(B*F)
			run.GMACs = macs / (run.MsPerStep / 1e3) / 1e9
			if run.CPUMsPerStreamFrame > 0 && peak > 0 {
				run.EfficiencyCPU = float64(rep.MACsPerFrame) / (run.CPUMsPerStreamFrame / 1e3) / 1e9 / (peak / float64(max(1, o.Threads)))
			}
			out.Runs = append(out.Runs, run)
			logf("%s: %d stream(s) × %d frame(s) per call: median %.2f ms per step (min %.2f), %.2f ms per stream-frame, %.1f GMAC/s, %.2f CPU ms per stream-frame",
				prec, B, F, run.MsPerStep, run.MsPerStepMin, run.MsPerStreamFrame, run.GMACs, run.CPUMsPerStreamFrame)
		}
	}
	m.SetStageHook(nil)
	if p2, how2, err := codecPeak(prec, &cfg, o.Threads, o.Peak); err == nil && p2 > peak {
		peak, how = p2, how2
	}
	out.PeakGMACs, out.PeakHow = peak, how
	if peak > 0 {
		out.FloorMsStreamFrame = float64(rep.MACsPerFrame) / (peak * 1e9) * 1e3
		for i := range out.Runs {
			run := &out.Runs[i]
			run.Efficiency = run.GMACs / peak
			run.EfficiencyBest = float64(rep.MACsPerFrame) * float64(run.Streams*run.FramesPerCall) / (run.MsPerStepMin / 1e3) / 1e9 / peak
		}
	}
	if o.SNRFrames > 0 && prec != "fp32" {
		logf("%s: SNR over %d frames against an fp32 copy", prec, o.SNRFrames)
		if out.SNRdB, err = CodecSNR(m, o.Codec, b, o.SNRFrames, r); err != nil {
			return nil, err
		}
		out.SNRFrames = o.SNRFrames
		logf("%s: SNR %.2f dB over %d frames", prec, out.SNRdB, o.SNRFrames)
	}
	return out, nil
}

// timeCodec decodes F frames of each of B new streams per step (Warmup
// untimed steps, then Steps timed ones, Repeats times) and returns the
// run's median step, stage shares, state bytes, CPU time and allocations;
// the caller fills in GMAC/s and efficiencies.
func timeCodec(o CodecOptions, m *codec.Model, B, F int, r *rand.Rand, stageT *[codec.NumStages]time.Duration, last *time.Time, logf func(string, ...any)) (CodecRun, error) {
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
			return CodecRun{}, err
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
	logf("%d stream(s) × %d frame(s) per call: %d × (%d warm-up and %d timed steps)", B, F, o.Repeats, o.Warmup, o.Steps)
	*stageT = [codec.NumStages]time.Duration{}
	medians := make([]float64, 0, o.Repeats)
	minStep := math.Inf(1)
	var mallocs uint64
	var cpu float64
	steps := make([]float64, o.Steps)
	for rep := 0; rep < o.Repeats; rep++ {
		for i := 0; i < o.Warmup; i++ {
			if err := step(); err != nil {
				return CodecRun{}, err
			}
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		c0 := ProcessCPUMs()
		for i := range steps {
			t0 := time.Now()
			if err := step(); err != nil {
				return CodecRun{}, err
			}
			steps[i] = time.Since(t0).Seconds() * 1e3
		}
		cpu += ProcessCPUMs() - c0
		runtime.ReadMemStats(&ms1)
		mallocs += ms1.Mallocs - ms0.Mallocs
		medians = append(medians, Median(steps))
		for _, s := range steps {
			minStep = min(minStep, s)
		}
	}
	perStep := Median(medians)
	frames := float64(B * F)
	timed := float64(o.Repeats * o.Steps)
	run := CodecRun{
		Streams: B, FramesPerCall: F, MsPerStep: perStep, MsPerStepMin: minStep, MsPerStreamFrame: perStep / frames,
		RealTimeFactor:      perStep / frames / (1e3 * float64(m.SamplesPerFrame()) / float64(cfg.SampleRate)),
		CPUMsPerStreamFrame: cpu / timed / frames,
		StageShare:          map[string]float64{},
		StateBytesStream:    streams[0].StateBytes(),
		AllocsPerStep:       float64(mallocs) / timed,
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

// CodecSNR decodes frames random frames of one stream with m and with an
// fp32 copy of the same codec (spec), and returns 10·log10(Σref² /
// Σ(ref − got)²) over their samples.
func CodecSNR(m *codec.Model, spec string, b codec.Backend, frames int, r *rand.Rand) (float64, error) {
	ref, err := host.OpenCodec(spec, b, "fp32")
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
	if noise == 0 {
		return math.Inf(1), nil
	}
	return 10 * math.Log10(sig/noise), nil
}

// loadAvg returns the first three fields of /proc/loadavg, or "" where
// there is none.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// WriteText prints the report for a terminal.
func (r *CodecReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "codec %s, %d thread(s), level %s: %.3f GMAC per frame; load average %s → %s\n",
		r.Codec, r.Threads, r.Level, float64(r.MACsPerFrame)/1e9, r.LoadAvgBefore, r.LoadAvgAfter)
	for _, p := range r.Precisions {
		fmt.Fprintf(w, "%s: peak %.0f GMAC/s (%s), floor %.2f ms per stream-frame, %.1f MB of weights",
			p.Precision, p.PeakGMACs, p.PeakHow, p.FloorMsStreamFrame, float64(p.WeightBytes)/1e6)
		if p.SNRFrames > 0 {
			fmt.Fprintf(w, ", SNR %.2f dB vs fp32 over %d frames", p.SNRdB, p.SNRFrames)
		}
		fmt.Fprintln(w)
		for _, run := range p.Runs {
			fmt.Fprintf(w, "  %d stream(s) × %d frame(s) per call: %.2f ms/step (min %.2f), %.2f ms/stream-frame (RTF %.3f), %.1f GMAC/s, efficiency %.2f (best %.2f, CPU-time %.2f), %.0f allocs/step\n",
				run.Streams, run.FramesPerCall, run.MsPerStep, run.MsPerStepMin, run.MsPerStreamFrame, run.RealTimeFactor, run.GMACs, run.Efficiency, run.EfficiencyBest, run.EfficiencyCPU, run.AllocsPerStep)
			fmt.Fprintf(w, "    stages:%s\n", formatShares(run.StageShare))
		}
	}
	if r.PeakNote != "" {
		fmt.Fprintf(w, "note: %s\n", r.PeakNote)
	}
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
