package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/omni-tts/omni/sampler"
)

// benchSamplerCmd times the batched sampler on random logits, every row
// seeded (so every row draws its V exponentials), against the floor of
// advancing the generators alone.
type benchSamplerCmd struct {
	Vocab       int     `default:"3072" help:"Vocabulary V (${default})."`
	Batch       int     `default:"8" help:"Rows per call B (${default})."`
	TopK        int     `name:"top-k" default:"50" help:"top_k of every row; 0 = off (${default})."`
	TopP        float64 `name:"top-p" default:"1" help:"top_p of every row (${default})."`
	MinP        float64 `name:"min-p" default:"0" help:"min_p of every row (${default})."`
	Temperature float64 `default:"0.9" help:"Temperature of every row (${default})."`
	Repetition  float64 `default:"1" help:"repetition_penalty of every row (${default})."`
	Calls       int     `default:"200" help:"Calls per repetition (${default})."`
	Reps        int     `default:"15" help:"Repetitions; the median is reported (${default})."`
	JSON        bool    `name:"json" help:"Print one JSON object on stdout."`
}

// samplerReport is what "omni bench sampler --json" prints.
type samplerReport struct {
	Vocab          int     `json:"vocab"`
	Batch          int     `json:"batch"`
	TopK           int     `json:"top_k"`
	TopP           float64 `json:"top_p"`
	MinP           float64 `json:"min_p"`
	Temperature    float64 `json:"temperature"`
	Reps           int     `json:"reps"`
	Calls          int     `json:"calls_per_rep"`
	USPerRow       float64 `json:"us_per_row"`           // median over repetitions (wall time)
	CPUUSPerRow    float64 `json:"cpu_us_per_row"`       // median thread CPU time (excludes time descheduled on a busy machine)
	CPUFloor       float64 `json:"cpu_floor_us_per_row"` // the floor in thread CPU time
	USPerRowMin    float64 `json:"us_per_row_min"`       // best repetition
	CopyUSPerRow   float64 `json:"copy_us_per_row"`      // refreshing the logits, included above
	FloorUSPerRow  float64 `json:"floor_us_per_row"`     // advancing a generator by 2V words
	OverFloor      float64 `json:"over_floor"`           // median of per-repetition ratios
	AllocsPerCall  float64 `json:"allocs_per_call"`
	TargetUSPerRow float64 `json:"target_us_per_row"`
}

// Run implements "omni bench sampler".
func (c *benchSamplerCmd) Run(g *Globals, _ context.Context) error {
	if err := checkBounds("bench sampler",
		bound{"--vocab", c.Vocab, 2, maxVocab},
		bound{"--batch", c.Batch, 1, maxStreams},
		bound{"--calls", c.Calls, 1, maxCalls},
		bound{"--reps", c.Reps, 1, maxRepeat}); err != nil {
		return err
	}
	s, err := sampler.New(sampler.Config{MaxBatch: c.Batch, Vocab: c.Vocab})
	if err != nil {
		return err
	}
	reqs := make([]*sampler.Request, c.Batch)
	for i := range reqs {
		p := sampler.DefaultParams()
		seed := int64(1000 + i)
		p.Seed = &seed
		p.TopK, p.TopP, p.MinP, p.Temperature, p.RepetitionPenalty = c.TopK, c.TopP, c.MinP, c.Temperature, c.Repetition
		r, err := sampler.NewRequest(p, c.Vocab, []int{1, 2, 3}, nil)
		if err != nil {
			return fmt.Errorf("bench sampler: %w", err)
		}
		reqs[i] = r
	}
	// 16 distinct batches of N(0, 2²) logits, cycled.
	const sets = 16
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, sets*c.Batch*c.Vocab)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 2)
	}
	n := c.Batch * c.Vocab
	logits := make([]float32, n)
	out := make([]int32, c.Batch)
	call := func(i int) {
		copy(logits, src[(i%sets)*n:(i%sets+1)*n])
		if err := s.Sample(logits, reqs, out); err != nil {
			panic(err)
		}
	}
	for i := 0; i < 50; i++ { // warm-up
		call(i)
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for i := 0; i < 500; i++ {
		call(i)
	}
	runtime.ReadMemStats(&ms1)
	allocs := float64(ms1.Mallocs-ms0.Mallocs) / 500

	gens := make([]*sampler.Generator, c.Batch)
	for i := range gens {
		gens[i] = sampler.NewGenerator(int64(i))
	}
	advance := func(int) {
		for _, gg := range gens {
			gg.Advance(c.Vocab)
		}
	}
	refresh := func(i int) { copy(logits, src[(i%sets)*n:(i%sets+1)*n]) }
	// Each repetition times the sampler, the floor and the copy back to
	// back, so the ratio is taken under the same machine load.
	defer lockThread()()
	cpus := make([]float64, 0, c.Reps)
	cpuFloor := make([]float64, 0, c.Reps)
	once := func(f func(i int)) float64 {
		start := time.Now()
		for i := 0; i < c.Calls; i++ {
			f(i)
		}
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(c.Calls*c.Batch)
	}
	times := make([]float64, c.Reps)
	floor := make([]float64, c.Reps)
	copies := make([]float64, c.Reps)
	ratios := make([]float64, c.Reps)
	for r := range times {
		c0, okCPU := threadCPU()
		times[r] = once(call)
		if c1, ok := threadCPU(); ok && okCPU {
			cpus = append(cpus, (c1-c0)/float64(c.Calls*c.Batch))
		}
		c2, okF := threadCPU()
		floor[r] = once(advance)
		if c3, ok := threadCPU(); ok && okF {
			cpuFloor = append(cpuFloor, (c3-c2)/float64(c.Calls*c.Batch))
		}
		copies[r] = once(refresh)
		ratios[r] = times[r] / floor[r]
	}
	for _, t := range [][]float64{times, floor, copies, ratios, cpus, cpuFloor} {
		slices.Sort(t)
	}
	rep := samplerReport{
		Vocab: c.Vocab, Batch: c.Batch, TopK: c.TopK, TopP: c.TopP, MinP: c.MinP, Temperature: c.Temperature,
		Reps: c.Reps, Calls: c.Calls,
		USPerRow: times[len(times)/2], USPerRowMin: times[0],
		CopyUSPerRow: copies[len(copies)/2], FloorUSPerRow: floor[len(floor)/2],
		AllocsPerCall: allocs, TargetUSPerRow: 25,
	}
	rep.OverFloor = ratios[len(ratios)/2]
	if len(cpus) > 0 {
		rep.CPUUSPerRow = cpus[len(cpus)/2]
		rep.CPUFloor = cpuFloor[len(cpuFloor)/2]
	}
	if c.JSON {
		e := json.NewEncoder(g.Stdout)
		e.SetIndent("", "  ")
		return e.Encode(rep)
	}
	fmt.Fprintf(g.Stdout, "sampler V=%d B=%d top_k=%d top_p=%g min_p=%g T=%g: %.2f µs/row median (best %.2f, thread CPU %.2f), %.2f allocs/call\n",
		c.Vocab, c.Batch, c.TopK, c.TopP, c.MinP, c.Temperature, rep.USPerRow, rep.USPerRowMin, rep.CPUUSPerRow, rep.AllocsPerCall)
	fmt.Fprintf(g.Stdout, "floor (generator advance by 2V words): %.2f µs/row, ratio %.2f; logits copy %.2f µs/row (included)\n",
		rep.FloorUSPerRow, rep.OverFloor, rep.CopyUSPerRow)
	return nil
}
