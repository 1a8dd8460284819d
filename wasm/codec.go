package wasm

import (
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/wasm/abi"
)

// decodeCodec runs a codec command: the decoder of spec on a tracking
// guest backend, the codes decoded on one stream in spec's pushes, the
// samples handed to the host through the reply's PCM.
func (s *Session) decodeCodec(spec *abi.CodecSpec, r *abi.Reply) error {
	if spec == nil {
		return fmt.Errorf("wasm: codec command without a spec")
	}
	b := NewTrackingBackend()
	defer b.FreeAll()
	var m *codec.Model
	var err error
	switch {
	case spec.Load != nil:
		m, err = b.ReplayCodec(spec.Load)
	case spec.Dir != "":
		m, err = codec.Load(spec.Dir, b, spec.Precision)
	default:
		var cfg codec.Config
		if cfg, err = codec.ParseConfig(spec.Config); err != nil {
			return fmt.Errorf("wasm: codec command: %w", err)
		}
		m, err = codec.NewSynthetic(cfg, spec.Seed, b, spec.Precision)
	}
	if err != nil {
		return fmt.Errorf("wasm: codec command: %w", err)
	}
	defer m.Close()
	T := len(spec.Codes)
	pushes := spec.Pushes
	if pushes == nil {
		pushes = []int{T}
	}
	sum := 0
	for _, p := range pushes {
		if p < 0 {
			return fmt.Errorf("wasm: codec command: push of %d frames", p)
		}
		sum += p
	}
	if sum != T {
		return fmt.Errorf("wasm: codec command: pushes sum to %d, codes hold %d frames", sum, T)
	}
	st, err := m.NewStream()
	if err != nil {
		return fmt.Errorf("wasm: codec command: %w", err)
	}
	defer st.Close()
	spf := m.SamplesPerFrame()
	pcm := make([]float32, T*spf)
	at := 0
	for _, p := range pushes {
		if err := st.Decode(spec.Codes[at:at+p], pcm[at*spf:(at+p)*spf]); err != nil {
			return fmt.Errorf("wasm: codec command: frames %d..%d: %w", at, at+p, err)
		}
		at += p
	}
	ref := s.pcm.Put(pcm)
	r.PCM = &ref
	return nil
}
