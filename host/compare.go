package host

import (
	"context"
	"fmt"
	"slices"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// E2EComparison holds the runs of CompareE2E and their medians.
type E2EComparison struct {
	Native, WASI []E2EResult
	// NativeMS and WASIMS are the median ms_per_frame of each mode; Ratio
	// is the median over the repetitions of WASI / native within each
	// repetition (the two runs of a repetition are back to back, so a
	// passing load on the machine falls on both); RatioOfMedians is
	// WASIMS / NativeMS.
	NativeMS, WASIMS, Ratio, RatioOfMedians float64
	// HostCallsPerFrame is the WASI runs' median.
	HostCallsPerFrame float64
	// Guest is the guest's own accounting over all its runs (step, model
	// and encode ms).
	Guest abi.Load
}

// CompareE2E loads o's model once and measures the same seeded workload
// (BenchE2E) reps times in each mode, after one warm-up pass of warmup
// frames (none below 2), alternating which goes first, so
// that both modes share the weights, the kernels and the machine's
// momentary load. The native side is core.Engine linked into this program,
// running on the host's handles.
func CompareE2E(ctx context.Context, o Options, streams, frames, textLen, warmup, reps int) (*E2EComparison, error) {
	if reps < 1 {
		return nil, fmt.Errorf("host: compare with %d repetitions", reps)
	}
	o.MaxBatch = streams
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	src := o.Source
	if src == nil {
		if src, err = predictor.OpenModel(o.Model); err != nil {
			return nil, err
		}
		defer src.Close()
	}
	nb := simd.NewBackend(o.Threads)
	s, rec, w, err := loadShared(src, nb, o.Precision)
	if err != nil {
		nb.Close()
		return nil, err
	}
	we, err := newWASIEngine(ctx, o, src, s, rec, nb)
	if err != nil {
		s.table.release(ownerHost, func(h int32) { nb.Free(h) })
		nb.Close()
		return nil, err
	}
	defer we.Close() // frees the weights and nb
	m, err := core.NewModel(w, core.ModelOptions{MaxBatch: streams, MaxLen: o.MaxLen, Path: o.Path})
	if err != nil {
		return nil, err
	}
	cfg := o.Engine
	cfg.Model, cfg.IDs, cfg.MaxBatch = m, core.IDsFromConfig(src.Config()), streams
	ce, err := core.New(cfg)
	if err != nil {
		m.Close()
		return nil, err
	}
	ne := &nativeEngine{e: ce}
	defer ce.Close()
	c := &E2EComparison{}
	if warmup >= 2 {
		for _, e := range []Engine{ne, we} {
			if _, err := BenchE2E(ctx, e, streams, warmup, textLen); err != nil {
				return nil, fmt.Errorf("host: %v warm-up: %w", e.Mode(), err)
			}
		}
	}
	for i := 0; i < reps; i++ {
		order := []Engine{ne, we}
		if i%2 == 1 {
			order = []Engine{we, ne}
		}
		for _, e := range order {
			r, err := BenchE2E(ctx, e, streams, frames, textLen)
			if err != nil {
				return nil, fmt.Errorf("host: %v run %d: %w", e.Mode(), i, err)
			}
			if e.Mode() == WASI {
				c.WASI = append(c.WASI, r)
			} else {
				c.Native = append(c.Native, r)
			}
		}
	}
	if _, err := we.Load(); err == nil {
		c.Guest = we.guestLoad()
	}
	med := func(rs []E2EResult, f func(E2EResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		} else {
			return (v[n/2-1] + v[n/2]) / 2
		}
	}
	ms := func(r E2EResult) float64 { return r.MSPerFrame }
	c.NativeMS, c.WASIMS = med(c.Native, ms), med(c.WASI, ms)
	c.RatioOfMedians = c.WASIMS / c.NativeMS
	pairs := make([]E2EResult, len(c.WASI))
	for i, w := range c.WASI {
		pairs[i] = E2EResult{MSPerFrame: w.MSPerFrame / c.Native[i].MSPerFrame}
	}
	c.Ratio = med(pairs, ms)
	c.HostCallsPerFrame = med(c.WASI, func(r E2EResult) float64 { return r.HostCallsPerFrame })
	return c, nil
}
