package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/omni-tts/omni/sampler"
)

// SamplerReport is what "omni bench sampler --json" prints.
type SamplerReport struct {
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

// SamplerOptions are the rows "omni bench sampler" times.
type SamplerOptions struct {
	Vocab, Batch                        int
	TopK                                int
	TopP, MinP, Temperature, Repetition float64
	Calls, Reps                         int
}

// Sampler times the batched sampler on random logits, every row seeded (so
// every row draws its V exponentials), against the floor of advancing the
// generators alone, each repetition timing both back to back.
func Sampler(o SamplerOptions) (*SamplerReport, error) {
	s, err := sampler.New(sampler.Config{MaxBatch: o.Batch, Vocab: o.Vocab})
	if err != nil {
		return nil, err
	}
	reqs := make([]*sampler.Request, o.Batch)
	for i := range reqs {
		p := sampler.DefaultParams()
		seed := int64(1000 + i)
		p.Seed = &seed
		p.TopK, p.TopP, p.MinP, p.Temperature, p.RepetitionPenalty = o.TopK, o.TopP, o.MinP, o.Temperature, o.Repetition
		r, err := sampler.NewRequest(p, o.Vocab, []int{1, 2, 3}, nil)
		if err != nil {
			return nil, fmt.Errorf("bench sampler: %w", err)
		}
		reqs[i] = r
	}
	// 16 distinct batches of N(0, 2²) logits, cycled.
	const sets = 16
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, sets*o.Batch*o.Vocab)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 2)
	}
	n := o.Batch * o.Vocab
	logits := make([]float32, n)
	out := make([]int32, o.Batch)
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

	gens := make([]*sampler.Generator, o.Batch)
	for i := range gens {
		gens[i] = sampler.NewGenerator(int64(i))
	}
	advance := func(int) {
		for _, gg := range gens {
			gg.Advance(o.Vocab)
		}
	}
	refresh := func(i int) { copy(logits, src[(i%sets)*n:(i%sets+1)*n]) }
	// Each repetition times the sampler, the floor and the copy back to
	// back, so the ratio is taken under the same machine load.
	defer lockThread()()
	cpus := make([]float64, 0, o.Reps)
	cpuFloor := make([]float64, 0, o.Reps)
	once := func(f func(i int)) float64 {
		start := time.Now()
		for i := 0; i < o.Calls; i++ {
			f(i)
		}
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(o.Calls*o.Batch)
	}
	times := make([]float64, o.Reps)
	floor := make([]float64, o.Reps)
	copies := make([]float64, o.Reps)
	ratios := make([]float64, o.Reps)
	for r := range times {
		c0, okCPU := threadCPU()
		times[r] = once(call)
		if c1, ok := threadCPU(); ok && okCPU {
			cpus = append(cpus, (c1-c0)/float64(o.Calls*o.Batch))
		}
		c2, okF := threadCPU()
		floor[r] = once(advance)
		if c3, ok := threadCPU(); ok && okF {
			cpuFloor = append(cpuFloor, (c3-c2)/float64(o.Calls*o.Batch))
		}
		copies[r] = once(refresh)
		ratios[r] = times[r] / floor[r]
	}
	times = sorted(times)
	rep := SamplerReport{
		Vocab: o.Vocab, Batch: o.Batch, TopK: o.TopK, TopP: o.TopP, MinP: o.MinP, Temperature: o.Temperature,
		Reps: o.Reps, Calls: o.Calls,
		USPerRow: Median(times), USPerRowMin: times[0],
		CopyUSPerRow: Median(copies), FloorUSPerRow: Median(floor),
		AllocsPerCall: allocs, TargetUSPerRow: 25,
	}
	rep.OverFloor = Median(ratios)
	if len(cpus) > 0 {
		rep.CPUUSPerRow = Median(cpus)
		rep.CPUFloor = Median(cpuFloor)
	}
	return &rep, nil
}

// WriteText writes the report as text.
func (rep *SamplerReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "sampler V=%d B=%d top_k=%d top_p=%g min_p=%g T=%g: %.2f µs/row median (best %.2f, thread CPU %.2f), %.2f allocs/call\n",
		rep.Vocab, rep.Batch, rep.TopK, rep.TopP, rep.MinP, rep.Temperature, rep.USPerRow, rep.USPerRowMin, rep.CPUUSPerRow, rep.AllocsPerCall)
	fmt.Fprintf(w, "floor (generator advance by 2V words): %.2f µs/row, ratio %.2f; logits copy %.2f µs/row (included)\n",
		rep.FloorUSPerRow, rep.OverFloor, rep.CopyUSPerRow)
}
