package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// ParityReport is the parity object of the bench reports.
type ParityReport struct {
	Pairs      int64   `json:"pairs"`
	Top1       float64 `json:"top1"`
	Top5       float64 `json:"top5"`
	MaxAbsDiff float64 `json:"max_abs_diff"`
	MeanKL     float64 `json:"mean_kl"`
}

// PredictorReport is what "omni bench predictor --json" prints.
type PredictorReport struct {
	Model            string        `json:"model"`
	Precision        string        `json:"precision"`
	Path             string        `json:"path"`
	Batch            int           `json:"batch"`
	Frames           int           `json:"frames"`
	Threads          int           `json:"threads"`
	Level            string        `json:"level"`
	MsPerFrame       float64       `json:"ms_per_frame"`
	SubstepMsP50     float64       `json:"substep_ms_p50"`
	BytesPerFrame    int64         `json:"bytes_per_frame"`
	FloorMsPerFrame  float64       `json:"floor_ms_per_frame"`
	Efficiency       float64       `json:"efficiency"`
	FloorL3MsFrame   float64       `json:"floor_l3_ms_per_frame"`
	EfficiencyL3     float64       `json:"efficiency_l3"`
	AllocsPerSubstep float64       `json:"allocs_per_substep"`
	MsPerFramePerRow float64       `json:"ms_per_frame_per_stream"`
	Parity           *ParityReport `json:"parity,omitempty"`
	Floor
}

// PredictorOptions say what "omni bench predictor" times.
type PredictorOptions struct {
	Model     string
	Precision predictor.Precision
	Path      predictor.Path
	Batch     int  // streams per pass
	Frames    int  // timed frames
	Warmup    int  // untimed frames first (at least 1)
	Parity    bool // run the fp32 reference beside it
	Threads   int
}

// Predictor times the code predictor's 15 sub-steps per frame against the
// weight-read floor measured in the same run (before and after).
func Predictor(o PredictorOptions, logf func(string, ...any)) (*PredictorReport, error) {
	src, err := host.OpenModel(o.Model)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	b := simd.NewBackend(o.Threads)
	defer b.Close()
	logf("loading %s predictor in %s", o.Model, o.Precision)
	w, err := predictor.LoadPredictorWeights(src, b, o.Precision)
	if err != nil {
		return nil, err
	}
	defer w.Free()
	p, err := predictor.NewCodePredictor(w, predictor.PredictorOptions{MaxBatch: o.Batch, Path: o.Path})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var par predictor.Parity
	if o.Parity {
		logf("loading the fp32 reference")
		rw, err := predictor.LoadPredictorWeights(src, b, predictor.FP32)
		if err != nil {
			return nil, err
		}
		defer rw.Free()
		ref, err := predictor.NewCodePredictor(rw, predictor.PredictorOptions{MaxBatch: o.Batch, Path: predictor.Incremental})
		if err != nil {
			return nil, err
		}
		if err := p.EnableParity(ref, &par); err != nil {
			return nil, err
		}
	}
	cfg := src.Config()
	H, G, V := cfg.Talker.Hidden, cfg.CodeGroups, cfg.PredictorVocab
	gain := make([]float32, H)
	if err := src.ReadF32("talker.model.norm.weight", gain); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	hidden := make([]float32, o.Batch*H)
	c0 := make([]int32, o.Batch)
	codes := make([]int32, o.Batch*G)
	subs := make([]float64, 0, (o.Frames+2)*(G-1))
	var last time.Time
	pick := func(gi int, logits []float32, out []int32) {
		for r := range out {
			out[r] = int32(argmax(logits[r*V : (r+1)*V]))
		}
		now := time.Now()
		subs = append(subs, now.Sub(last).Seconds())
		last = now
	}
	frame := func() error {
		for i := range hidden {
			hidden[i] = float32(rng.NormFloat64()) * gain[i%H]
		}
		for r := range c0 {
			c0[r] = int32(rng.IntN(V))
		}
		last = time.Now()
		return p.PredictFrame(hidden, c0, codes, pick)
	}
	fl := NewFloorMeter(o.Threads)
	defer fl.Close()
	logf("warm-up, then %d frames at batch %d, %d thread(s), level %s", o.Frames, o.Batch, o.Threads, simd.Active())
	for i := 0; i < max(1, o.Warmup); i++ {
		if err := frame(); err != nil {
			return nil, err
		}
	}
	before := fl.Measure()
	subs = subs[:0]
	par = predictor.Parity{}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	frameTimes := make([]float64, 0, o.Frames)
	for i := 0; i < o.Frames; i++ {
		t0 := time.Now()
		if err := frame(); err != nil {
			return nil, err
		}
		frameTimes = append(frameTimes, time.Since(t0).Seconds())
	}
	runtime.ReadMemStats(&ms1)
	after := fl.Measure()
	bytes, err := w.BytesPerFrame()
	if err != nil {
		return nil, err
	}
	rep := PredictorReport{
		Model: o.Model, Precision: o.Precision.String(), Path: o.Path.String(), Batch: o.Batch, Frames: o.Frames,
		Threads: o.Threads, Level: simd.Active().String(),
		MsPerFrame:    Median(frameTimes) * 1e3,
		SubstepMsP50:  Median(subs) * 1e3,
		BytesPerFrame: bytes,
		Floor:         MedianFloor(before, after),
		// The steady-state allocation count includes the benchmark's own
		// loop (none) and the predictor's.
		AllocsPerSubstep: float64(ms1.Mallocs-ms0.Mallocs) / float64(o.Frames*(G-1)),
	}
	rep.MsPerFramePerRow = rep.MsPerFrame / float64(o.Batch)
	rep.FloorMsPerFrame = FloorMS(bytes, rep.ReadGBps)
	rep.Efficiency = Efficiency(rep.FloorMsPerFrame, rep.MsPerFrame)
	rep.FloorL3MsFrame = FloorMS(bytes, rep.ReadL3GBps)
	rep.EfficiencyL3 = Efficiency(rep.FloorL3MsFrame, rep.MsPerFrame)
	if o.Parity {
		rep.Parity = &ParityReport{Pairs: par.Pairs, Top1: par.Top1(), Top5: par.Top5(), MaxAbsDiff: par.MaxAbsDiff, MeanKL: par.MeanKL()}
	}
	return &rep, nil
}

// WriteText writes the report as text.
func (rep *PredictorReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "predictor %s %s %s batch %d, %d threads (%s): %.2f ms/frame (sub-step p50 %.3f ms), %d MB/frame, floor %.2f ms at %.1f GB/s (efficiency %.2f; L3 %.1f GB/s → %.2f ms, %.2f), %.2f allocs/sub-step\n",
		rep.Model, rep.Precision, rep.Path, rep.Batch, rep.Threads, rep.Level, rep.MsPerFrame, rep.SubstepMsP50,
		rep.BytesPerFrame>>20, rep.FloorMsPerFrame, rep.ReadGBps, rep.Efficiency, rep.ReadL3GBps, rep.FloorL3MsFrame, rep.EfficiencyL3, rep.AllocsPerSubstep)
	if rep.Parity != nil {
		fmt.Fprintf(w, "parity vs fp32 over %d pairs: top-1 %.3f, top-5 %.3f, max |Δlogit| %.3f, mean KL %.5f\n",
			rep.Parity.Pairs, rep.Parity.Top1, rep.Parity.Top5, rep.Parity.MaxAbsDiff, rep.Parity.MeanKL)
	}
}

// argmax returns the index of the largest value (the first on ties).
func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}
