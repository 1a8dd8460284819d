package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// benchPredictorCmd times the code predictor's 15 sub-steps per frame
// against the weight-read floor measured in the same run.
type benchPredictorCmd struct {
	Model     string `default:"synth:0.6b" help:"Model: a checkpoint directory, a pulled hub id ORG/NAME[@REV], or synth:SIZE[+outliers] (${default})."`
	Precision string `default:"int8" enum:"fp32,int8,int8-fp32head,int8-pertensor" help:"Matrix precision: ${enum} (${default})."`
	Batch     int    `default:"1" help:"Streams per pass (${default})."`
	Frames    int    `default:"20" help:"Timed frames, after the warm-up frames (${default})."`
	Warmup    int    `default:"8" help:"Untimed warm-up frames: the Go runtime starts the OS threads the kernel pool's wake-ups need during the first few, and those allocations are not the predictor's (${default})."`
	Path      string `default:"incremental" enum:"incremental,full" help:"Sub-step path: ${enum} (${default})."`
	Parity    bool   `help:"Also run the fp32 reference beside it and report parity (timing then includes the reference)."`
	JSON      bool   `name:"json" help:"Print one JSON object on stdout."`
}

// parityReport is the parity object of the bench reports.
type parityReport struct {
	Pairs      int64   `json:"pairs"`
	Top1       float64 `json:"top1"`
	Top5       float64 `json:"top5"`
	MaxAbsDiff float64 `json:"max_abs_diff"`
	MeanKL     float64 `json:"mean_kl"`
}

// floorReport holds the read rates measured beside a benchmark: DRAM (a
// buffer ≫ L3) and an L3-resident buffer.
type floorReport struct {
	ReadGBps   float64 `json:"read_gbps"`
	ReadL3GBps float64 `json:"read_l3_gbps"`
}

// predictorReport is what "omni bench predictor --json" prints.
type predictorReport struct {
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
	Parity           *parityReport `json:"parity,omitempty"`
	floorReport
}

// Run implements "omni bench predictor".
func (c *benchPredictorCmd) Run(g *Globals, _ context.Context) error {
	if c.Batch < 1 || c.Frames < 1 {
		return fmt.Errorf("bench predictor: --batch %d and --frames %d must be ≥ 1", c.Batch, c.Frames)
	}
	prec, err := predictor.ParsePrecision(c.Precision)
	if err != nil {
		return err
	}
	path, err := predictor.ParsePath(c.Path)
	if err != nil {
		return err
	}
	threads := g.kernelThreads()
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench predictor: "+format+"\n", a...) }
	src, err := openModel(c.Model)
	if err != nil {
		return err
	}
	defer src.Close()
	b := simd.NewBackend(threads)
	defer b.Close()
	logf("loading %s predictor in %s", c.Model, prec)
	w, err := predictor.LoadPredictorWeights(src, b, prec)
	if err != nil {
		return err
	}
	defer w.Free()
	p, err := predictor.NewCodePredictor(w, predictor.PredictorOptions{MaxBatch: c.Batch, Path: path})
	if err != nil {
		return err
	}
	defer p.Close()
	var par predictor.Parity
	if c.Parity {
		logf("loading the fp32 reference")
		rw, err := predictor.LoadPredictorWeights(src, b, predictor.FP32)
		if err != nil {
			return err
		}
		defer rw.Free()
		ref, err := predictor.NewCodePredictor(rw, predictor.PredictorOptions{MaxBatch: c.Batch, Path: predictor.Incremental})
		if err != nil {
			return err
		}
		if err := p.EnableParity(ref, &par); err != nil {
			return err
		}
	}
	cfg := src.Config()
	H, G, V := cfg.Talker.Hidden, cfg.CodeGroups, cfg.PredictorVocab
	gain := make([]float32, H)
	if err := src.ReadF32("talker.model.norm.weight", gain); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	hidden := make([]float32, c.Batch*H)
	c0 := make([]int32, c.Batch)
	codes := make([]int32, c.Batch*G)
	subs := make([]float64, 0, (c.Frames+2)*(G-1))
	var last time.Time
	pick := func(gi int, logits []float32, out []int32) {
		for r := range out {
			out[r] = int32(predArgmax(logits[r*V : (r+1)*V]))
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
	fl := newFloorMeter(threads)
	logf("warm-up, then %d frames at batch %d, %d thread(s), level %s", c.Frames, c.Batch, threads, simd.Active())
	for i := 0; i < max(1, c.Warmup); i++ {
		if err := frame(); err != nil {
			return err
		}
	}
	floors := []floorReport{fl.measure()}
	subs = subs[:0]
	par = predictor.Parity{}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	frameTimes := make([]float64, 0, c.Frames)
	for i := 0; i < c.Frames; i++ {
		t0 := time.Now()
		if err := frame(); err != nil {
			return err
		}
		frameTimes = append(frameTimes, time.Since(t0).Seconds())
	}
	runtime.ReadMemStats(&ms1)
	floors = append(floors, fl.measure())
	bytes, err := w.BytesPerFrame()
	if err != nil {
		return err
	}
	rep := predictorReport{
		Model: c.Model, Precision: prec.String(), Path: path.String(), Batch: c.Batch, Frames: c.Frames,
		Threads: threads, Level: simd.Active().String(),
		MsPerFrame:    predMedian(frameTimes) * 1e3,
		SubstepMsP50:  predMedian(subs) * 1e3,
		BytesPerFrame: bytes,
		floorReport:   medianFloor(floors),
		// The steady-state allocation count includes the benchmark's own
		// loop (none) and the predictor's.
		AllocsPerSubstep: float64(ms1.Mallocs-ms0.Mallocs) / float64(c.Frames*(G-1)),
	}
	rep.MsPerFramePerRow = rep.MsPerFrame / float64(c.Batch)
	rep.FloorMsPerFrame = float64(bytes) / (rep.ReadGBps * 1e9) * 1e3
	rep.Efficiency = rep.FloorMsPerFrame / rep.MsPerFrame
	rep.FloorL3MsFrame = float64(bytes) / (rep.ReadL3GBps * 1e9) * 1e3
	rep.EfficiencyL3 = rep.FloorL3MsFrame / rep.MsPerFrame
	if c.Parity {
		rep.Parity = &parityReport{Pairs: par.Pairs, Top1: par.Top1(), Top5: par.Top5(), MaxAbsDiff: par.MaxAbsDiff, MeanKL: par.MeanKL()}
	}
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(g.Stdout, "predictor %s %s %s batch %d, %d threads (%s): %.2f ms/frame (sub-step p50 %.3f ms), %d MB/frame, floor %.2f ms at %.1f GB/s (efficiency %.2f; L3 %.1f GB/s → %.2f ms, %.2f), %.2f allocs/sub-step\n",
		rep.Model, rep.Precision, rep.Path, rep.Batch, rep.Threads, rep.Level, rep.MsPerFrame, rep.SubstepMsP50,
		rep.BytesPerFrame>>20, rep.FloorMsPerFrame, rep.ReadGBps, rep.Efficiency, rep.ReadL3GBps, rep.FloorL3MsFrame, rep.EfficiencyL3, rep.AllocsPerSubstep)
	if rep.Parity != nil {
		fmt.Fprintf(g.Stdout, "parity vs fp32 over %d pairs: top-1 %.3f, top-5 %.3f, max |Δlogit| %.3f, mean KL %.5f\n",
			rep.Parity.Pairs, rep.Parity.Top1, rep.Parity.Top5, rep.Parity.MaxAbsDiff, rep.Parity.MeanKL)
	}
	return nil
}

// predArgmax returns the index of the largest value (the first on ties).
func predArgmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// predMedian returns the median of v (0 when empty).
func predMedian(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// floorMeter measures streaming-read rates with simd.StreamRead on the
// benchmark's thread count: a 1 GiB buffer (DRAM; ≫ the 260 MiB L3) and a
// 64 MiB one read repeatedly (L3-resident).
type floorMeter struct {
	pool       *simd.Pool
	dram, l3   *readTask
	threads    int
	l3Repeats  int
	dramBuffer []byte
}

func newFloorMeter(threads int) *floorMeter {
	f := &floorMeter{pool: simd.NewPool(threads), threads: threads, l3Repeats: 8}
	f.dramBuffer = make([]byte, 1<<30)
	for i := range f.dramBuffer {
		f.dramBuffer[i] = byte(i)
	}
	f.dram = &readTask{buf: f.dramBuffer, parts: threads, sums: make([]uint64, threads)}
	small := make([]byte, 64<<20)
	for i := range small {
		small[i] = byte(i * 3)
	}
	f.l3 = &readTask{buf: small, parts: threads, sums: make([]uint64, threads)}
	return f
}

// measure returns the median of three DRAM passes and of three sets of
// L3 passes (after a warm-up pass each).
func (f *floorMeter) measure() floorReport {
	var d, l []float64
	f.pool.Run(f.dram, f.threads, 1)
	f.pool.Run(f.l3, f.threads, 1)
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		f.pool.Run(f.dram, f.threads, 1)
		d = append(d, float64(len(f.dram.buf))/time.Since(t0).Seconds()/1e9)
		t0 = time.Now()
		for j := 0; j < f.l3Repeats; j++ {
			f.pool.Run(f.l3, f.threads, 1)
		}
		l = append(l, float64(f.l3Repeats*len(f.l3.buf))/time.Since(t0).Seconds()/1e9)
	}
	return floorReport{ReadGBps: predMedian(d), ReadL3GBps: predMedian(l)}
}

// medianFloor combines the floors measured before and after the timed work.
func medianFloor(fs []floorReport) floorReport {
	var d, l []float64
	for _, f := range fs {
		d, l = append(d, f.ReadGBps), append(l, f.ReadL3GBps)
	}
	return floorReport{ReadGBps: predMedian(d), ReadL3GBps: predMedian(l)}
}
