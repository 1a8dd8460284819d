package core

import (
	"fmt"

	"github.com/omni-tts/omni/predictor"
)

// NewEngine is the one way to assemble an engine on loaded weights
// (predictor.LoadWeights): it builds the model (NewModel with mo, whose
// MaxBatch defaults to cfg.MaxBatch and gives it when cfg's is 0), takes
// the special ids from the checkpoint config mc (IDsFromConfig) and starts
// the engine (New) with cfg, whose Model and IDs it sets. mo.Wrap, when
// set, wraps the model first (the WASI guest times it). Close frees the
// model; the weights stay the caller's, so one load can host engines one
// after another. host.Open calls it for the native engine, the WASI guest
// for its own.
func NewEngine(w *predictor.Weights, mc *predictor.Config, cfg Config, mo ModelOptions) (*Engine, error) {
	if mc == nil {
		return nil, fmt.Errorf("core: engine needs the checkpoint config")
	}
	if cfg.Model != nil {
		return nil, fmt.Errorf("core: NewEngine builds the model itself: config has one")
	}
	if mo.MaxBatch == 0 {
		mo.MaxBatch = cfg.MaxBatch
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = mo.MaxBatch
	}
	if mo.MaxBatch < 1 {
		return nil, fmt.Errorf("core: max batch %d below 1", mo.MaxBatch)
	}
	m, err := NewModel(w, mo)
	if err != nil {
		return nil, err
	}
	if mo.Wrap != nil {
		m = mo.Wrap(m)
	}
	cfg.Model, cfg.IDs = m, IDsFromConfig(mc)
	e, err := New(cfg)
	if err != nil {
		m.Close()
		return nil, err
	}
	return e, nil
}
