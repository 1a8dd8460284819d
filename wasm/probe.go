package wasm

import (
	"fmt"
	"math"

	"github.com/omni-tts/omni/core"
)

// Probe runs m directly, without an engine: a prefill of embeds (rows ×
// hidden) on a fresh sequence, then steps frames in which codebook 0 is the
// argmax over the codebook ids, codebooks 1..15 are picked greedily, and
// the frame's embedding is decoded. It returns the bit pattern of every
// logit the model produced, in call order, and the codes chosen, so a WASI
// run and a native run can be compared bit for bit.
func Probe(m core.Model, embeds []float32, steps int) ([]uint32, [][16]int32, error) {
	d := m.Dims()
	if d.Hidden < 1 || len(embeds) == 0 || len(embeds)%d.Hidden != 0 {
		return nil, nil, fmt.Errorf("wasm: probe embeds of %d values not a multiple of hidden %d", len(embeds), d.Hidden)
	}
	if steps < 0 || steps > 4096 {
		return nil, nil, fmt.Errorf("wasm: probe steps %d outside [0, 4096]", steps)
	}
	seq, err := m.NewSequence(len(embeds)/d.Hidden + steps + 1)
	if err != nil {
		return nil, nil, err
	}
	defer seq.Close()
	var bits []uint32
	keep := func(v []float32) {
		for _, f := range v {
			bits = append(bits, math.Float32bits(f))
		}
	}
	hidden, logits := make([]float32, d.Hidden), make([]float32, d.Vocab)
	if err := m.Prefill(seq, embeds, hidden, logits); err != nil {
		return nil, nil, fmt.Errorf("wasm: probe prefill: %w", err)
	}
	keep(logits)
	var codes [][16]int32
	frame := make([]int32, d.Groups)
	emb := make([]float32, d.Hidden)
	for i := 0; i < steps; i++ {
		c0 := argmax(logits[:d.CodebookSize])
		pick := func(g int, lg []float32, out []int32) {
			keep(lg)
			for r := range out {
				out[r] = argmax(lg[r*d.CodebookSize : (r+1)*d.CodebookSize])
			}
		}
		if err := m.PredictFrame(hidden, []int32{c0}, frame, pick); err != nil {
			return nil, nil, fmt.Errorf("wasm: probe frame %d: %w", i, err)
		}
		var f [16]int32
		copy(f[:], frame)
		codes = append(codes, f)
		if err := m.FrameEmbed(emb, frame); err != nil {
			return nil, nil, fmt.Errorf("wasm: probe frame %d embed: %w", i, err)
		}
		if err := m.Decode([]core.Sequence{seq}, emb, hidden, logits); err != nil {
			return nil, nil, fmt.Errorf("wasm: probe frame %d decode: %w", i, err)
		}
		keep(logits)
	}
	return bits, codes, nil
}

// argmax returns the index of the first largest value.
func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}
