package wasm

import (
	"time"

	"github.com/omni-tts/omni/core"
)

// modelTimes is the session's accounting of its model's calls.
type modelTimes struct {
	ns             int64  // wall time in the model (graph plus host calls)
	pickNS         int64  // wall time in the predictor's pick callbacks (sampling)
	prefills       uint64 // single-sequence Prefill calls
	batchPrefills  uint64 // PrefillBatch calls
	batchPrefilled uint64 // sequences prefilled by PrefillBatch calls
}

// timedModel wraps a core.Model and adds the wall time of its calls (the
// graph plus its host calls) to the session's modelTimes: the session's
// stats split a step into model time and the rest of the control core
// (sampler, scheduler). Use timed to wrap a model: it keeps the optional
// interfaces core looks for.
type timedModel struct {
	core.Model
	t *modelTimes
}

// timedBatchModel is a timedModel whose inner model is a
// core.BatchPrefiller: embedding a timedModel alone would hide the
// interface and make the engine prefill one request at a time.
type timedBatchModel struct {
	timedModel
	bp core.BatchPrefiller
}

// timed wraps m so its calls are accounted in t, forwarding every optional
// interface of core.Model that m implements (core.BatchPrefiller).
func timed(m core.Model, t *modelTimes) core.Model {
	tm := timedModel{Model: m, t: t}
	if bp, ok := m.(core.BatchPrefiller); ok {
		return timedBatchModel{timedModel: tm, bp: bp}
	}
	return tm
}

// PrefillBatch implements core.BatchPrefiller.
func (m timedBatchModel) PrefillBatch(seqs []core.Sequence, rows []int, embeds, hidden, logits []float32) error {
	defer m.add(time.Now())
	m.t.batchPrefills++
	m.t.batchPrefilled += uint64(len(seqs))
	return m.bp.PrefillBatch(seqs, rows, embeds, hidden, logits)
}

func (m timedModel) add(t0 time.Time) { m.t.ns += int64(time.Since(t0)) }

// TextEmbed implements core.Model.
func (m timedModel) TextEmbed(out []float32, ids []int32) error {
	defer m.add(time.Now())
	return m.Model.TextEmbed(out, ids)
}

// CodecEmbed implements core.Model.
func (m timedModel) CodecEmbed(out []float32, ids []int32) error {
	defer m.add(time.Now())
	return m.Model.CodecEmbed(out, ids)
}

// Prefill implements core.Model.
func (m timedModel) Prefill(seq core.Sequence, embeds, hidden, logits []float32) error {
	defer m.add(time.Now())
	m.t.prefills++
	return m.Model.Prefill(seq, embeds, hidden, logits)
}

// Decode implements core.Model.
func (m timedModel) Decode(seqs []core.Sequence, embeds, hidden, logits []float32) error {
	defer m.add(time.Now())
	return m.Model.Decode(seqs, embeds, hidden, logits)
}

// PredictFrame implements core.Model; the time of pick (the sampler) is
// left out.
func (m timedModel) PredictFrame(hidden []float32, c0, codes []int32, pick func(g int, logits []float32, codes []int32)) error {
	t0 := time.Now()
	var inPick time.Duration
	err := m.Model.PredictFrame(hidden, c0, codes, func(g int, logits []float32, codes []int32) {
		p0 := time.Now()
		pick(g, logits, codes)
		inPick += time.Since(p0)
	})
	m.t.ns += int64(time.Since(t0) - inPick)
	m.t.pickNS += int64(inPick)
	return err
}

// FrameEmbed implements core.Model.
func (m timedModel) FrameEmbed(out []float32, codes []int32) error {
	defer m.add(time.Now())
	return m.Model.FrameEmbed(out, codes)
}
