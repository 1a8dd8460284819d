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

// TalkerReport is what "omni bench talker --json" prints.
type TalkerReport struct {
	Model           string  `json:"model"`
	Precision       string  `json:"precision"`
	Batch           int     `json:"batch"`
	Tokens          int     `json:"tokens"`
	Prompt          int     `json:"prompt"`
	Threads         int     `json:"threads"`
	Level           string  `json:"level"`
	MsPerToken      float64 `json:"ms_per_token"`
	Prefills        int     `json:"prefills"`   // prefills timed (the batch's and --prefills more)
	PrefillMs       float64 `json:"prefill_ms"` // their median
	PrefillMsPerRow float64 `json:"prefill_ms_per_row"`
	BytesPerToken   int64   `json:"bytes_per_token"`
	FloorMsPerToken float64 `json:"floor_ms_per_token"`
	Efficiency      float64 `json:"efficiency"`
	FloorL3MsToken  float64 `json:"floor_l3_ms_per_token"`
	EfficiencyL3    float64 `json:"efficiency_l3"`
	AllocsPerToken  float64 `json:"allocs_per_token"`
	Floor
}

// TalkerOptions say what "omni bench talker" times.
type TalkerOptions struct {
	Model     string
	Precision predictor.Precision
	Batch     int // sequences per decode step
	Tokens    int // timed decode steps (after 2 warm-up steps)
	Prompt    int // prefill rows per sequence
	Prefills  int // timed prefills of one more sequence, after an untimed one (the median is reported with the batch's)
	Threads   int
}

// Talker times the talker's prefill and decode steps against the
// weight-read floor measured in the same run (before and after).
func Talker(o TalkerOptions, logf func(string, ...any)) (*TalkerReport, error) {
	src, err := host.OpenModel(o.Model)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	b := simd.NewBackend(o.Threads)
	defer b.Close()
	logf("loading %s talker in %s", o.Model, o.Precision)
	w, err := predictor.LoadTalkerWeights(src, b, o.Precision)
	if err != nil {
		return nil, err
	}
	defer w.Free()
	maxLen := o.Prompt + o.Tokens + 2
	tk, err := predictor.NewTalker(w, predictor.TalkerOptions{MaxBatch: o.Batch, MaxLen: maxLen})
	if err != nil {
		return nil, err
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
	seqs := make([]*predictor.Sequence, o.Batch)
	hidden, logits := make([]float32, o.Batch*H), make([]float32, o.Batch*V)
	// timePrefill prefills a new sequence with a random prompt and returns
	// it and the seconds the prefill took.
	timePrefill := func() (*predictor.Sequence, float64, error) {
		s, err := tk.NewSequence(maxLen)
		if err != nil {
			return nil, 0, err
		}
		prompt := rows(o.Prompt)
		t0 := time.Now()
		if err := tk.Prefill(s, prompt, hidden[:H], logits[:V]); err != nil {
			s.Close()
			return nil, 0, err
		}
		return s, time.Since(t0).Seconds(), nil
	}
	var prefill []float64
	for i := range seqs {
		s, el, err := timePrefill()
		if err != nil {
			return nil, err
		}
		defer s.Close()
		seqs[i] = s
		prefill = append(prefill, el)
	}
	// More prefills of a scratch sequence each, after an untimed one: a
	// single prefill right after the load is one cold sample.
	for i := 0; o.Prefills > 0 && i <= o.Prefills; i++ {
		s, el, err := timePrefill()
		if err != nil {
			return nil, err
		}
		s.Close()
		if i > 0 {
			prefill = append(prefill, el)
		}
	}
	in := rows(o.Batch)
	fl := NewFloorMeter(o.Threads)
	defer fl.Close()
	logf("warm-up, then %d steps at batch %d after a %d-row prefill, %d thread(s), level %s", o.Tokens, o.Batch, o.Prompt, o.Threads, simd.Active())
	for i := 0; i < 2; i++ {
		if err := tk.Decode(seqs, in, hidden, logits); err != nil {
			return nil, err
		}
	}
	before := fl.Measure()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	steps := make([]float64, 0, o.Tokens)
	for i := 0; i < o.Tokens; i++ {
		t0 := time.Now()
		if err := tk.Decode(seqs, in, hidden, logits); err != nil {
			return nil, err
		}
		steps = append(steps, time.Since(t0).Seconds())
	}
	runtime.ReadMemStats(&ms1)
	after := fl.Measure()
	bytes, err := w.BytesPerToken()
	if err != nil {
		return nil, err
	}
	rep := TalkerReport{
		Model: o.Model, Precision: o.Precision.String(), Batch: o.Batch, Tokens: o.Tokens, Prompt: o.Prompt,
		Threads: o.Threads, Level: simd.Active().String(),
		MsPerToken:     Median(steps) * 1e3,
		Prefills:       len(prefill),
		PrefillMs:      Median(prefill) * 1e3,
		BytesPerToken:  bytes,
		Floor:          MedianFloor(before, after),
		AllocsPerToken: float64(ms1.Mallocs-ms0.Mallocs) / float64(o.Tokens),
	}
	rep.PrefillMsPerRow = rep.PrefillMs / float64(o.Prompt)
	rep.FloorMsPerToken = FloorMS(bytes, rep.ReadGBps)
	rep.Efficiency = Efficiency(rep.FloorMsPerToken, rep.MsPerToken)
	rep.FloorL3MsToken = FloorMS(bytes, rep.ReadL3GBps)
	rep.EfficiencyL3 = Efficiency(rep.FloorL3MsToken, rep.MsPerToken)
	return &rep, nil
}

// WriteText writes the report as text.
func (rep *TalkerReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "talker %s %s batch %d, %d threads (%s): %.2f ms/token, prefill of %d rows %.1f ms (median of %d), %d MB/token, floor %.2f ms at %.1f GB/s (efficiency %.2f), %.2f allocs/token\n",
		rep.Model, rep.Precision, rep.Batch, rep.Threads, rep.Level, rep.MsPerToken, rep.Prompt, rep.PrefillMs, rep.Prefills,
		rep.BytesPerToken>>20, rep.FloorMsPerToken, rep.ReadGBps, rep.Efficiency, rep.AllocsPerToken)
}
