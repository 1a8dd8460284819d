package sampler

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Config sizes a Sampler once: its batch and vocabulary bound every call.
type Config struct {
	// MaxBatch is the largest number of rows one Sample call may carry.
	MaxBatch int
	// Vocab is the number of logits per row; every request must have been
	// validated for the same vocabulary.
	Vocab int
	// Seed seeds the engine generator used by random rows without a seed
	// (vLLM seeds its global generator with 0 by default).
	Seed int64
	// Processed makes Sample leave the fully processed logits in the logits
	// slice (every mask materialized as -inf), as vLLM's processed logits.
	// When false the slice's contents after Sample are unspecified and the
	// top-k mask is never written, which saves a pass.
	Processed bool
	// Timer, when set, receives the time of each sampling phase per call
	// (sampler.process_ms, sampler.filter_ms, sampler.noise_ms,
	// sampler.pick_ms, sampler.total_ms). Nil disables timing at no cost.
	Timer func(name string, ms float64)
}

// Validate checks the sizes.
func (c *Config) Validate() error {
	if c.MaxBatch <= 0 {
		return fmt.Errorf("sampler: max batch %d must be positive", c.MaxBatch)
	}
	if c.Vocab <= 0 || c.Vocab > math.MaxInt32 {
		return fmt.Errorf("sampler: vocab %d outside [1, 2³¹)", c.Vocab)
	}
	return nil
}

// Sampler samples batches of rows exactly as vLLM's v1 sampler does on the
// CPU with per-request generators. It is created once per engine for a
// batch and vocabulary bound and reuses its scratch, so Sample allocates
// nothing. It is not safe for concurrent use.
type Sampler struct {
	cfg    Config
	engine *Generator

	keys []uint64  // sort keys for top-p (value, index)
	surv []int32   // survivors, ascending index
	e    []float32 // exp(x − max) by vocabulary id
	q    []float32 // noise of the survivors
	heap []float32 // top-k min-heap
	bmax []float32 // block maxima of the top-k pre-pass
	tmp  []float32 // scratch for processors

	// phase times of the current call, in nanoseconds
	tProcess, tFilter, tNoise, tPick time.Duration
}

// New returns a Sampler for cfg.
func New(cfg Config) (*Sampler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v := cfg.Vocab
	return &Sampler{
		cfg:    cfg,
		engine: NewGenerator(cfg.Seed),
		keys:   make([]uint64, v),
		surv:   make([]int32, v),
		e:      make([]float32, v),
		q:      make([]float32, v),
		heap:   make([]float32, v),
		bmax:   make([]float32, blocks(v)),
		tmp:    make([]float32, v),
	}, nil
}

// EngineGenerator is the generator random rows without a seed draw from.
func (s *Sampler) EngineGenerator() *Generator { return s.engine }

// ErrBatch is wrapped by the error for a Sample call whose shapes do not
// match the Sampler or its requests.
var ErrBatch = errors.New("sampler: batch mismatch")

// ErrNonFinite is wrapped by the error for a row whose logits hold a NaN or
// +Inf once the processors have run (they only ever write -Inf, so the
// value came from the model: damaged weights or an overflow). torch would
// return token 0 for such a row; omni refuses it, so a broken model fails
// the step instead of speaking a stream of silent codes.
var ErrNonFinite = errors.New("sampler: non-finite logits")

// NonFiniteError is the error for a row whose processed logits hold a NaN
// or +Inf; it matches ErrNonFinite. Rows before Row were sampled (their
// tokens are in out), rows after it were not touched, so a caller may end
// that row's request alone and sample the rest again.
type NonFiniteError struct {
	Row         int     // the row of the Sample call
	ID          int     // the first id whose logit is not finite
	Value       float32 // its logit after the processors and temperature
	Temperature float32 // the row's effective temperature
}

// Error implements error.
func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("%v: row %d: logit of id %d is %v (temperature %g)", ErrNonFinite, e.Row, e.ID, e.Value, e.Temperature)
}

// Is makes errors.Is(err, ErrNonFinite) true.
func (e *NonFiniteError) Is(target error) bool { return target == ErrNonFinite }

// Sample chooses one token per row. logits holds len(reqs) rows of Vocab
// float32 logits and is used as scratch (see Config.Processed); out receives
// the tokens. Every random row with its own generator draws exactly Vocab
// exponentials from it; unseeded random rows draw Vocab each from the engine
// generator, in row order; greedy rows draw nothing. Sample does not append
// the tokens to the requests' histories: call Request.Append.
//
// A row whose logits hold a NaN or +Inf is a *NonFiniteError (matching
// ErrNonFinite) naming the row and the id; the rows before it are sampled,
// the rows after it untouched. A row with every id at -Inf (everything masked) is not
// an error: it gives token 0, as torch's argmax of an all-NaN softmax does.
func (s *Sampler) Sample(logits []float32, reqs []*Request, out []int32) error {
	v := s.cfg.Vocab
	b := len(reqs)
	switch {
	case b > s.cfg.MaxBatch:
		return fmt.Errorf("%w: %d rows, sampler holds %d", ErrBatch, b, s.cfg.MaxBatch)
	case len(logits) != b*v:
		return fmt.Errorf("%w: %d logits for %d rows of %d", ErrBatch, len(logits), b, v)
	case len(out) < b:
		return fmt.Errorf("%w: out holds %d tokens for %d rows", ErrBatch, len(out), b)
	}
	for i, r := range reqs {
		if r == nil {
			return fmt.Errorf("%w: row %d has no request", ErrBatch, i)
		}
		if r.vocab != v {
			return fmt.Errorf("%w: row %d request vocab %d, sampler vocab %d", ErrBatch, i, r.vocab, v)
		}
	}
	timed := s.cfg.Timer != nil
	var start time.Time
	if timed {
		start = time.Now()
		s.tProcess, s.tFilter, s.tNoise, s.tPick = 0, 0, 0, 0
	}
	for i, r := range reqs {
		row := logits[i*v : (i+1)*v]
		tok, bad := s.sampleRow(row, r, timed)
		if bad >= 0 {
			return &NonFiniteError{Row: i, ID: bad, Value: row[bad], Temperature: r.temp}
		}
		out[i] = tok
	}
	if timed {
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		s.cfg.Timer("sampler.process_ms", ms(s.tProcess))
		s.cfg.Timer("sampler.filter_ms", ms(s.tFilter))
		s.cfg.Timer("sampler.noise_ms", ms(s.tNoise))
		s.cfg.Timer("sampler.pick_ms", ms(s.tPick))
		s.cfg.Timer("sampler.total_ms", ms(time.Since(start)))
	}
	return nil
}

// lap adds the time since *t to *acc and resets *t (only when timing).
func lap(timed bool, t *time.Time, acc *time.Duration) {
	if timed {
		now := time.Now()
		*acc += now.Sub(*t)
		*t = now
	}
}

// sampleRow runs the whole pipeline on one row. bad is the first id whose
// processed, temperature-divided logit is NaN or +Inf, or -1; it is looked
// for on the degenerate path only, so a finite row pays nothing for it.
func (s *Sampler) sampleRow(x []float32, r *Request, timed bool) (tok int32, bad int) {
	var t time.Time
	if timed {
		t = time.Now()
	}
	r.applyProcessors(x, s.tmp)
	lap(timed, &t, &s.tProcess)
	if r.greedy {
		tok := argmaxFirst(x)
		lap(timed, &t, &s.tPick)
		// argmaxFirst returns the first NaN, else the first maximum.
		if v := x[tok]; v != v || v > maxFloat32 {
			return 0, int(tok)
		}
		return tok, -1
	}
	gen := r.gen
	if gen == nil {
		gen = s.engine
	}
	if r.topK > 0 && r.minP == 0 && !s.cfg.Processed {
		surv, max, ok := s.topKFast(x, r.topK, r.temp)
		if ok && r.topP < 1 {
			surv = s.applyTopP(x, surv, max, r.topP)
		}
		return s.finish(x, r.temp, gen, surv, max, ok, timed, &t)
	}
	if r.temp != 1 {
		for i := range x {
			x[i] /= r.temp
		}
	}
	max, ok := rowMax(x)
	if !ok {
		// NaN, +inf (refused by finish) or an all -inf row: torch's
		// softmax is all NaN and argmax returns 0. The noise is drawn all
		// the same.
		return s.finish(x, 1, gen, nil, 0, false, timed, &t)
	}
	if r.minP > 0 {
		s.applyMinP(x, max, r.minP)
	}
	var surv []int32
	if r.topK > 0 {
		thr := kthLargest(x, r.topK, s.heap)
		surv = collectAtLeast(x, thr, s.surv)
		if s.cfg.Processed {
			maskBelow(x, thr)
		}
	} else {
		surv = collectFinite(x, s.surv)
	}
	if r.topP < 1 {
		surv = s.applyTopP(x, surv, max, r.topP)
	}
	return s.finish(x, 1, gen, surv, max, true, timed, &t)
}

// finish draws the row's noise (always V elements) and runs the race over
// the survivors. A degenerate row (ok false) gives token 0 when every value
// is -Inf, and the bad id (see sampleRow) when one is NaN or +Inf once
// divided by div (the temperature when x is still raw, else 1).
func (s *Sampler) finish(x []float32, div float32, gen *Generator, surv []int32, max float32, ok, timed bool, t *time.Time) (int32, int) {
	lap(timed, t, &s.tFilter)
	if !ok {
		if id := badLogit(x, div); id >= 0 {
			return 0, id
		}
		gen.skipExponential(len(x))
		lap(timed, t, &s.tNoise)
		return 0, -1
	}
	q := s.q[:len(surv)]
	zero := gen.exponentialAt(len(x), surv, q)
	lap(timed, t, &s.tNoise)
	tok := s.race(x, surv, q, max, zero)
	lap(timed, t, &s.tPick)
	return tok, -1
}

// badLogit returns the first id whose logit divided by div is NaN or +Inf,
// or -1 (the division is the full path's own float32 division, so both
// paths refuse the same rows).
func badLogit(x []float32, div float32) int {
	for i, v := range x {
		if v = v / div; v != v || v > maxFloat32 {
			return i
		}
	}
	return -1
}
