package host

import (
	"context"
	"errors"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/core"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
)

// nativeEngine is core.Engine linked into this program.
type nativeEngine struct {
	*texter
	e   *core.Engine
	w   *predictor.Weights
	nb  *simd.Backend
	src predictor.Source // closed by Close when Open opened it
	cm  *codec.Model     // the codec stage's decoder (nil: codes only)
	cb  *simd.Backend    // its kernel pool
	// stopPrivate stops the weights' private copy behind the load (Close).
	stopPrivate func()
}

// openNative loads the weights on nb and starts a core.Engine.
func openNative(o Options, src predictor.Source, nb *simd.Backend) (*nativeEngine, error) {
	// The codec opens and warms up on its own backend while the model's
	// weights load (on two cores the two overlap: the cache's checksums
	// and the warm-up's first full pass are each about 0.3 s).
	type opened struct {
		cm  *codec.Model
		cb  *simd.Backend
		err error
	}
	codecDone := make(chan opened, 1)
	go func() {
		cm, cb, err := openCodecStage(&o)
		codecDone <- opened{cm, cb, err}
	}()
	w, err := o.cache.loadWeights(o.Model, src, nb, nb, o.Precision)
	oc := <-codecDone
	cm, cb := oc.cm, oc.cb
	if err == nil {
		err = oc.err
	} else if cm != nil {
		cm.Close()
		cb.Close()
	}
	if err != nil {
		if w != nil {
			w.Free()
		}
		return nil, err
	}
	cfg := o.Engine
	cfg.MaxBatch = o.MaxBatch
	cfg.Codec = cm
	if cm != nil && cfg.CodecBusyThreads > 0 {
		cfg.CodecBusy = lendThreads(nb, cfg.CodecBusyThreads)
	}
	tx, err := o.text.get()
	var e *core.Engine
	if err == nil {
		e, err = core.NewEngine(w, src.Config(), cfg, core.ModelOptions{MaxLen: o.MaxLen, Path: o.Path})
	}
	if err != nil {
		w.Free()
		if cm != nil {
			cm.Close()
			cb.Close()
		}
		return nil, err
	}
	return &nativeEngine{texter: tx, e: e, w: w, nb: nb, cm: cm, cb: cb}, nil
}

// Submit implements Engine.
func (n *nativeEngine) Submit(ctx context.Context, req core.Request) (*core.Stream, error) {
	return n.e.Submit(ctx, req)
}

// Step implements Engine.
func (n *nativeEngine) Step() (bool, error) { return n.e.Step() }

// Run implements Engine.
func (n *nativeEngine) Run(ctx context.Context) error { return n.e.Run(ctx) }

// Start implements Engine. A failed loop closes the core engine (its
// streams end with core.ErrClosed); Close frees the rest.
func (n *nativeEngine) Start(ctx context.Context) func() error {
	return start(ctx, n.e.Run, func(error) { n.e.Close() })
}

// Load implements Engine.
func (n *nativeEngine) Load() (core.Load, error) { return n.e.Load(), nil }

// Mode implements Engine.
func (n *nativeEngine) Mode() Mode { return Native }

// weights implements measured.
func (n *nativeEngine) weights() *predictor.Weights { return n.w }

// hostCalls implements measured.
func (n *nativeEngine) hostCalls() uint64 { return 0 }

// Close implements Engine.
func (n *nativeEngine) Close() error {
	if n.stopPrivate != nil {
		n.stopPrivate()
	}
	err := n.e.Close()
	n.w.Free()
	n.nb.Close()
	if n.cm != nil {
		err = errors.Join(err, n.cm.Close())
		n.cb.Close()
	}
	if n.src != nil {
		err = errors.Join(err, n.src.Close())
	}
	return err
}

// lendThreads returns the codec stage's busy hook: while the codec decodes
// on codecThreads beside generation, generation's kernels run on the rest
// of its pool (at least one thread), so the two stages never put more busy
// threads than cores on the machine; between decode calls generation has
// all of its threads again.
func lendThreads(model *simd.Backend, codecThreads int) func(bool) {
	all := model.SetThreads(0)
	rest := max(1, all-codecThreads)
	return func(busy bool) {
		if busy {
			model.SetThreads(rest)
		} else {
			model.SetThreads(all)
		}
	}
}
