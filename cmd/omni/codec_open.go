package main

import (
	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/host"
)

// openCodec loads the codec decoder named by spec: a codec directory, a
// checkpoint directory (its speech_tokenizer/), a pulled ORG/NAME, or
// synth:SIZE[+…][@SEED] — the synthetic codec that goes with that model
// (host.OpenCodec: the real geometry for 0.6b and 1.7b, the small one with
// the real interface otherwise; seed 1 by default), the one an engine uses.
func openCodec(spec string, b codec.Backend, precision string) (*codec.Model, error) {
	return host.OpenCodec(spec, b, precision)
}
