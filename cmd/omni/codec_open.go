package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/omni-tts/omni/codec"
)

// openCodec loads the codec decoder named by spec: a codec directory, a
// checkpoint directory (its speech_tokenizer/), or synth:SIZE[+…][@SEED]
// — the synthetic codec omni model synth writes for that size (the real
// geometry for 0.6b and 1.7b, the tiny one otherwise; seed 1 by default).
func openCodec(spec string, b codec.Backend, precision string) (*codec.Model, error) {
	rest, ok := strings.CutPrefix(spec, "synth:")
	if !ok {
		return codec.Load(spec, b, precision)
	}
	seed := uint64(1)
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		s, err := strconv.ParseUint(rest[i+1:], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("codec spec %q: seed %q is not an unsigned integer", spec, rest[i+1:])
		}
		seed, rest = s, rest[:i]
	}
	size, _, _ := strings.Cut(rest, "+")
	var cfg codec.Config
	switch size {
	case "0.6b", "1.7b", "real":
		cfg = codec.RealConfig()
	case "tiny", "tiny-wide":
		cfg = codec.TinyConfig()
	default:
		return nil, fmt.Errorf("codec spec %q: size %q unknown (want 0.6b, 1.7b, real, tiny or tiny-wide)", spec, size)
	}
	return codec.NewSynthetic(cfg, seed, b, precision)
}
