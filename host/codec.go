package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/simd"
)

// CodecSettings configure the codec stage of an engine (the decoder that
// turns each stream's codes into 24 kHz PCM as they are made).
type CodecSettings struct {
	// Off runs the engine without a codec: streams carry codes only.
	Off bool
	// Spec is a codec directory, a checkpoint directory holding
	// speech_tokenizer/, or synth:SIZE[@SEED] (the synthetic codec: the
	// real geometry for 0.6b and 1.7b, the tiny one otherwise). "" means
	// the model's own: <checkpoint>/speech_tokenizer for a directory or a
	// pulled ORG/NAME, the synthetic codec of a synth: model. With only a
	// Source and no Model or Spec the engine runs without a codec.
	Spec string
	// Precision is "fp32" (default), "bf16", "int8" or "mixed" (codec.Precisions).
	Precision string
	// Threads sizes the codec's own kernel pool (default: Options.Threads).
	Threads int
}

// codecSpec returns the codec spec of o ("" for none).
func (o *Options) codecSpec() string {
	if o.Codec.Off {
		return ""
	}
	if o.Codec.Spec != "" {
		return o.Codec.Spec
	}
	return o.Model
}

// OpenCodec opens the codec of spec on b: a codec directory, a checkpoint
// directory (its speech_tokenizer/), a pulled hub id ORG/NAME[@REV], or
// synth:SIZE[+outliers][@SEED] (the synthetic codec of that model, seed 1
// unless given). precision "" means fp32.
func OpenCodec(spec string, b codec.Backend, precision string) (*codec.Model, error) {
	if precision == "" {
		precision = "fp32"
	}
	rest, ok := strings.CutPrefix(spec, "synth:")
	if !ok {
		dir, _, err := hub.Resolve(spec)
		if err != nil {
			return nil, fmt.Errorf("host: codec of %s: %w", spec, err)
		}
		if st := filepath.Join(dir, "speech_tokenizer"); isDir(st) {
			dir = st
		}
		m, err := codec.Load(dir, b, precision)
		if err != nil {
			return nil, fmt.Errorf("host: codec of %s: %w", spec, err)
		}
		return m, nil
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
	m, err := codec.NewSynthetic(SynthCodecConfig(size), seed, b, precision)
	if err != nil {
		return nil, fmt.Errorf("host: codec of %s: %w", spec, err)
	}
	return m, nil
}

// SynthCodecConfig returns the geometry of the synthetic codec that goes
// with the synthetic model of size: the real codec's for 0.6b and 1.7b (and
// "real"); for the small models codec.TinyConfig with the real interface —
// 2048 entries per codebook (the synthetic talker's codes) and strides
// 8·5·4·3, so a frame is 1920 samples at 24 kHz as with the real codec —
// on narrow layers (decoder_dim 512: every vocoder width a multiple of 32,
// as int8 needs), cheap enough for tests.
func SynthCodecConfig(size string) codec.Config {
	switch size {
	case "0.6b", "1.7b", "real":
		return codec.RealConfig()
	}
	c := codec.TinyConfig()
	c.CodebookSize = 2048
	c.UpsampleRates = []int{8, 5, 4, 3}
	return c
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// openCodecStage opens the codec of o on its own kernel pool; nil, nil
// when o has no codec.
func openCodecStage(o *Options) (*codec.Model, *simd.Backend, error) {
	spec := o.codecSpec()
	if spec == "" {
		return nil, nil, nil
	}
	threads := o.Codec.Threads
	if threads == 0 {
		threads = o.Threads
	}
	cb := simd.NewBackend(threads)
	m, err := OpenCodec(spec, cb, o.Codec.Precision)
	if err == nil {
		err = warmCodec(m)
	}
	if err != nil {
		if m != nil {
			m.Close()
		}
		cb.Close()
		return nil, nil, err
	}
	return m, cb, nil
}

// warmCodec decodes two frames on a throwaway stream so the first request
// does not pay for the decoder's scratch buffers (its time to first audio
// would otherwise carry them).
func warmCodec(m *codec.Model) error {
	s, err := m.NewStream()
	if err != nil {
		return fmt.Errorf("host: codec warm-up: %w", err)
	}
	defer s.Close()
	frames := make([][codec.Codebooks]int32, 2)
	if err := s.Decode(frames, make([]float32, 2*m.SamplesPerFrame())); err != nil {
		return fmt.Errorf("host: codec warm-up: %w", err)
	}
	return nil
}
