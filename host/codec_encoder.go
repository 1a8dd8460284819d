package host

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/predictor"
)

// OpenCodecEncoder opens the codec encoder (24 kHz samples to codes) of
// spec on b, with the specs OpenCodec takes: a codec directory, a
// checkpoint directory (its speech_tokenizer/), a pulled hub id
// ORG/NAME[@REV], or synth:SIZE[+…][@SEED] (the synthetic codec's encoder
// half, SynthEncoderConfig(SIZE), seed 1 unless given). precision "" means
// fp32 (codec.EncoderPrecisions).
func OpenCodecEncoder(spec string, b codec.Backend, precision string) (*codec.Encoder, error) {
	if precision == "" {
		precision = "fp32"
	}
	rest, ok := strings.CutPrefix(spec, "synth:")
	if !ok {
		dir, _, err := hub.Resolve(spec)
		if err != nil {
			return nil, fmt.Errorf("host: codec encoder of %s: %w", spec, err)
		}
		if st := filepath.Join(dir, "speech_tokenizer"); isDir(st) {
			dir = st
		}
		e, err := codec.LoadEncoder(dir, b, precision)
		if err != nil {
			return nil, fmt.Errorf("host: codec encoder of %s: %w", spec, err)
		}
		return e, nil
	}
	seed := uint64(1)
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		s, err := strconv.ParseUint(rest[i+1:], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("host: codec spec %q: seed %q is not an unsigned integer", spec, rest[i+1:])
		}
		seed, rest = s, rest[:i]
	}
	size, _, _ := strings.Cut(rest, "+")
	if size == "" {
		return nil, fmt.Errorf("host: codec spec %q names no size", spec)
	}
	e, err := codec.NewSyntheticEncoder(SynthEncoderConfig(size), seed, b, precision)
	if err != nil {
		return nil, fmt.Errorf("host: codec encoder of %s: %w", spec, err)
	}
	return e, nil
}

// SynthEncoderConfig returns the encoder geometry of the synthetic codec
// that goes with the synthetic model of size: the real encoder's for 0.6b
// and 1.7b (and "real"); for the small models the real interface (strides
// 8·6·5·4 and the ×2 downsample, 1920 samples per frame; 2048 entries per
// codebook, the synthetic talker's codes) on narrow layers, cheap enough
// for tests.
func SynthEncoderConfig(size string) codec.EncoderConfig {
	size, _ = predictor.SynthBaseSize(size) // a Base model has its size's codec
	switch size {
	case "0.6b", "1.7b", "real":
		return codec.RealEncoderConfig()
	}
	c := codec.TinyEncoderConfig()
	c.Ratios = []int{8, 6, 5, 4}
	c.ResidualLayers = 1
	c.Hidden, c.Intermediate, c.Heads, c.HeadDim = 32, 64, 2, 16
	c.SlidingWindow = 250
	c.CodebookSize, c.CodebookDim = 2048, 16
	return c
}
