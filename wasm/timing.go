package wasm

import (
	"time"

	"github.com/omni-tts/omni/core"
)

// timedModel wraps a core.Model and adds the wall time of its calls (the
// graph plus its host calls) to *ns: the session's stats split a step into
// model time and the rest of the control core (sampler, scheduler).
type timedModel struct {
	core.Model
	ns *int64
}

func (m timedModel) add(t0 time.Time) { *m.ns += int64(time.Since(t0)) }

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
	*m.ns += int64(time.Since(t0) - inPick)
	return err
}

// FrameEmbed implements core.Model.
func (m timedModel) FrameEmbed(out []float32, codes []int32) error {
	defer m.add(time.Now())
	return m.Model.FrameEmbed(out, codes)
}
