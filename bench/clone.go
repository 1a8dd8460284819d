package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/omni-tts/omni/core"
)

// cloneRefTextIDs is the length of a synthetic clone's reference
// transcript, in text ids (a short sentence).
const cloneRefTextIDs = 12

// SyntheticClone returns an in-context clone of frames reference frames
// for a model with ids' hidden size and codebook size: the codes, the
// x-vector and the transcript's ids drawn from seed. It stands for a
// prepared voice (speaker embedding, reference codes, transcript) without
// a clip: the prompt, the decoder's priming and the attention over the
// longer context cost what a real reference of that length costs. A
// different seed gives a different reference, so no primed decoder state
// is reused between them (core's primed-state cache keys on the codes).
func SyntheticClone(ids core.SpecialIDs, frames int, seed uint64) (*core.Clone, error) {
	if ids.Hidden < 1 || ids.CodebookSize < 1 {
		return nil, fmt.Errorf("bench: a synthetic clone needs the model's hidden size and codebook size (have %d and %d)", ids.Hidden, ids.CodebookSize)
	}
	if frames < 1 {
		return nil, fmt.Errorf("bench: a synthetic clone of %d reference frames, want at least 1", frames)
	}
	r := rand.New(rand.NewPCG(seed, 0x636c6f6e65)) // "clone"
	c := &core.Clone{XVector: make([]float32, ids.Hidden), RefCodes: make([]int32, frames*core.Codebooks),
		RefTextIDs: make([]int32, cloneRefTextIDs)}
	for i := range c.XVector {
		c.XVector[i] = float32(r.NormFloat64()) * 0.05
	}
	for i := range c.RefCodes {
		c.RefCodes[i] = int32(r.IntN(ids.CodebookSize))
	}
	for i := range c.RefTextIDs {
		c.RefTextIDs[i] = int32(1 + r.IntN(97)) // ids the demo text uses too
	}
	return c, nil
}
