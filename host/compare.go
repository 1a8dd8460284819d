package host

import (
	"context"
	"fmt"
	"time"

	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/wasm/abi"
)

// E2EComparison holds the runs of CompareE2E (package bench reduces them
// to medians and quartiles).
type E2EComparison struct {
	Native, WASI []E2EResult
	// StepRatios holds, for every decode step of every repetition, the
	// WASI step's wall time over the native one's: the two engines run
	// the same seeded workload in lockstep, one step each in turn (which
	// goes first alternates), so a passing load on the machine falls on
	// both halves of a pair.
	StepRatios []float64
	// Guest is the guest's own accounting over all its runs (step, model
	// and encode ms).
	Guest abi.Load
}

// CompareE2E loads o's model once and measures the same seeded workload
// (BenchE2E's) reps times in both modes at once, after one warm-up pass of
// warmup frames (none below 2): each repetition submits the workload to
// both engines and steps them in lockstep, one decode step each in turn,
// so that both modes share the weights, the kernels and the machine's
// momentary load, and every step of one is paired with the same step of
// the other. The native side is core.Engine linked into this program,
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
	if o.Files == nil && o.Model != "" {
		f, err := ResolveModel(o.Model)
		if err != nil {
			return nil, err
		}
		o.Files = &f
	}
	src := o.Source
	if src == nil {
		if src, err = o.Files.OpenSource(); err != nil {
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
	cfg := o.Engine
	cfg.MaxBatch = streams
	ce, err := core.NewEngine(w, src.Config(), cfg, core.ModelOptions{MaxLen: o.MaxLen, Path: o.Path})
	if err != nil {
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
		n, w, err := benchPaired(ctx, ne, we, streams, frames, textLen, c)
		if err != nil {
			return nil, fmt.Errorf("host: run %d: %w", i, err)
		}
		c.Native = append(c.Native, n)
		c.WASI = append(c.WASI, w)
	}
	if _, err := we.Load(); err == nil {
		c.Guest = we.guestLoad()
	}
	return c, nil
}

// benchPaired runs one repetition of the workload on both engines in
// lockstep and appends the per-step WASI / native ratios to c.StepRatios.
// Which engine steps first alternates from step to step. A step one engine runs after the other has gone idle is timed but
// unpaired (the workloads are identical, so it does not happen when both
// are correct).
func benchPaired(ctx context.Context, ne, we Engine, streams, frames, textLen int, c *E2EComparison) (n, w E2EResult, err error) {
	nb, err := startBench(ctx, ne, streams, frames, textLen)
	if err != nil {
		return nb.res, w, fmt.Errorf("%v: %w", ne.Mode(), err)
	}
	wb, err := startBench(ctx, we, streams, frames, textLen)
	if err != nil {
		return n, wb.res, fmt.Errorf("%v: %w", we.Mode(), err)
	}
	for k := 0; nb.busy || wb.busy; k++ {
		order := [2]*benchRun{nb, wb}
		if k%2 == 1 {
			order = [2]*benchRun{wb, nb}
		}
		var d [2]time.Duration
		for i, b := range order {
			if !b.busy {
				continue
			}
			if d[i], err = b.step(); err != nil {
				return nb.res, wb.res, fmt.Errorf("%v: %w", b.e.Mode(), err)
			}
		}
		if d[0] > 0 && d[1] > 0 {
			dn, dw := d[0], d[1]
			if k%2 == 1 {
				dn, dw = dw, dn
			}
			c.StepRatios = append(c.StepRatios, float64(dw)/float64(dn))
		}
	}
	if n, err = nb.finish(ctx); err != nil {
		return n, w, fmt.Errorf("%v: %w", ne.Mode(), err)
	}
	if w, err = wb.finish(ctx); err != nil {
		return n, w, fmt.Errorf("%v: %w", we.Mode(), err)
	}
	return n, w, nil
}
