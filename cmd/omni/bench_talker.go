package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// benchTalkerCmd times the talker's prefill and decode steps against the
// weight-read floor measured in the same run.
type benchTalkerCmd struct {
	Model     string `default:"synth:0.6b" help:"Model: a checkpoint directory, a pulled hub id ORG/NAME[@REV], or synth:SIZE[+outliers] (${default})."`
	Precision string `default:"int8" enum:"fp32,int8,int8-fp32head" help:"Matrix precision: ${enum} (${default})."`
	Batch     int    `default:"1" help:"Sequences per decode step (${default})."`
	Tokens    int    `default:"20" help:"Timed decode steps, after 2 warm-up steps (${default})."`
	Prompt    int    `default:"64" help:"Prefill rows per sequence (a typical prompt) (${default})."`
	JSON      bool   `name:"json" help:"Print one JSON object on stdout."`
}

// talkerReport is what "omni bench talker --json" prints.
type talkerReport struct {
	Model           string  `json:"model"`
	Precision       string  `json:"precision"`
	Batch           int     `json:"batch"`
	Tokens          int     `json:"tokens"`
	Prompt          int     `json:"prompt"`
	Threads         int     `json:"threads"`
	Level           string  `json:"level"`
	MsPerToken      float64 `json:"ms_per_token"`
	PrefillMs       float64 `json:"prefill_ms"`
	PrefillMsPerRow float64 `json:"prefill_ms_per_row"`
	BytesPerToken   int64   `json:"bytes_per_token"`
	FloorMsPerToken float64 `json:"floor_ms_per_token"`
	Efficiency      float64 `json:"efficiency"`
	FloorL3MsToken  float64 `json:"floor_l3_ms_per_token"`
	EfficiencyL3    float64 `json:"efficiency_l3"`
	AllocsPerToken  float64 `json:"allocs_per_token"`
	floorReport
}

// Run implements "omni bench talker".
func (c *benchTalkerCmd) Run(g *Globals, _ context.Context) error {
	if c.Batch < 1 || c.Tokens < 1 || c.Prompt < 1 {
		return fmt.Errorf("bench talker: --batch %d, --tokens %d and --prompt %d must be ≥ 1", c.Batch, c.Tokens, c.Prompt)
	}
	prec, err := predictor.ParsePrecision(c.Precision)
	if err != nil {
		return err
	}
	threads := g.kernelThreads()
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench talker: "+format+"\n", a...) }
	src, err := openModel(c.Model)
	if err != nil {
		return err
	}
	defer src.Close()
	b := simd.NewBackend(threads)
	defer b.Close()
	logf("loading %s talker in %s", c.Model, prec)
	w, err := predictor.LoadTalkerWeights(src, b, prec)
	if err != nil {
		return err
	}
	defer w.Free()
	maxLen := c.Prompt + c.Tokens + 2
	tk, err := predictor.NewTalker(w, predictor.TalkerOptions{MaxBatch: c.Batch, MaxLen: maxLen})
	if err != nil {
		return err
	}
	H, V := w.Hidden(), w.Vocab()
	rng := rand.New(rand.NewPCG(9, 9))
	rows := func(n int) []float32 {
		v := make([]float32, n*H)
		for i := range v {
			v[i] = float32(rng.NormFloat64()) * 0.5
		}
		return v
	}
	seqs := make([]*predictor.Sequence, c.Batch)
	hidden, logits := make([]float32, c.Batch*H), make([]float32, c.Batch*V)
	var prefill []float64
	for i := range seqs {
		s, err := tk.NewSequence(maxLen)
		if err != nil {
			return err
		}
		defer s.Close()
		seqs[i] = s
		prompt := rows(c.Prompt)
		t0 := time.Now()
		if err := tk.Prefill(s, prompt, hidden[:H], logits[:V]); err != nil {
			return err
		}
		prefill = append(prefill, time.Since(t0).Seconds())
	}
	in := rows(c.Batch)
	fl := newFloorMeter(threads)
	logf("warm-up, then %d steps at batch %d after a %d-row prefill, %d thread(s), level %s", c.Tokens, c.Batch, c.Prompt, threads, simd.Active())
	for i := 0; i < 2; i++ {
		if err := tk.Decode(seqs, in, hidden, logits); err != nil {
			return err
		}
	}
	floors := []floorReport{fl.measure()}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	steps := make([]float64, 0, c.Tokens)
	for i := 0; i < c.Tokens; i++ {
		t0 := time.Now()
		if err := tk.Decode(seqs, in, hidden, logits); err != nil {
			return err
		}
		steps = append(steps, time.Since(t0).Seconds())
	}
	runtime.ReadMemStats(&ms1)
	floors = append(floors, fl.measure())
	bytes, err := w.BytesPerToken()
	if err != nil {
		return err
	}
	rep := talkerReport{
		Model: c.Model, Precision: prec.String(), Batch: c.Batch, Tokens: c.Tokens, Prompt: c.Prompt,
		Threads: threads, Level: simd.Active().String(),
		MsPerToken:     predMedian(steps) * 1e3,
		PrefillMs:      predMedian(prefill) * 1e3,
		BytesPerToken:  bytes,
		floorReport:    medianFloor(floors),
		AllocsPerToken: float64(ms1.Mallocs-ms0.Mallocs) / float64(c.Tokens),
	}
	rep.PrefillMsPerRow = rep.PrefillMs / float64(c.Prompt)
	rep.FloorMsPerToken = float64(bytes) / (rep.ReadGBps * 1e9) * 1e3
	rep.Efficiency = rep.FloorMsPerToken / rep.MsPerToken
	rep.FloorL3MsToken = float64(bytes) / (rep.ReadL3GBps * 1e9) * 1e3
	rep.EfficiencyL3 = rep.FloorL3MsToken / rep.MsPerToken
	if c.JSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(g.Stdout, "talker %s %s batch %d, %d threads (%s): %.2f ms/token, prefill of %d rows %.1f ms, %d MB/token, floor %.2f ms at %.1f GB/s (efficiency %.2f), %.2f allocs/token\n",
		rep.Model, rep.Precision, rep.Batch, rep.Threads, rep.Level, rep.MsPerToken, rep.Prompt, rep.PrefillMs,
		rep.BytesPerToken>>20, rep.FloorMsPerToken, rep.ReadGBps, rep.Efficiency, rep.AllocsPerToken)
	return nil
}
