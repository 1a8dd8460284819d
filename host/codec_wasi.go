package host

import (
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/wasm/abi"
)

// recordCodec runs load (a codec loader: OpenCodec, codec.Load,
// codec.NewSynthetic) on s's native backend through a recorder, so the
// codec's weights are host-owned handles of s's table, and returns the
// model (which also runs natively on those handles) with the CodecLoad a
// WASI engine puts in its EngineSpec for every guest instance to replay
// (wasm.Backend.ReplayCodec). Only the load's handles are in the log: a
// stream made later through the model is not.
func recordCodec(s *hostState, load func(b codec.Backend) (*codec.Model, error)) (*codec.Model, *abi.CodecLoad, error) {
	if s.codec == nil {
		return nil, nil, errNoCodec
	}
	rec := &recorder{s: s}
	m, err := load(rec)
	if err != nil {
		return nil, nil, err
	}
	cfg := m.Config()
	js, err := cfg.JSON()
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("host: codec config: %w", err)
	}
	return m, &abi.CodecLoad{Config: js, Precision: m.Precision(), Created: append([]abi.Created(nil), rec.log...)}, nil
}

// codecStreamBytes is the host memory one guest stream's codec state holds
// on the host (its window KV state; the conv tails live in guest memory):
// a WASI engine whose guest runs the codec stage adds it, per stream the
// engine may run, to the instance budget beside the talker's KV budget.
func codecStreamBytes(cfg codec.Config) int64 {
	return windowKVBytes(cfg.Layers, cfg.Heads, cfg.HeadDim, cfg.SlidingWindow)
}
