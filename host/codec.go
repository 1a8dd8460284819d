package host

import (
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/predictor"
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
	// Precision is "fp32" (default), "bf16", "int8", "mixed"
	// (codec.Precisions), a per-family spec such as "bf16+res=int8"
	// (codec.ParsePrecision), or "auto": the precision measured fastest
	// within 30 dB of fp32 at the active kernel level
	// (simd.DefaultCodecPrecision; what the omni command uses).
	Precision string
	// Threads is how many threads the codec decodes on while generation
	// runs (default: Options.Threads). Its kernel pool has the larger of
	// this and Options.Threads, and while generation waits (no stream
	// generating, or the step loop blocked on the codec) it decodes on all
	// of them (core.Config.CodecBusyThreads).
	Threads int
}

// codecLoader returns the function that opens o's codec on a backend: the
// Codec.Spec override, else the model's own codec; nil when o has none
// (Codec.Off, or a Source alone with neither Model nor Codec.Spec).
func (o *Options) codecLoader() func(codec.Backend) (*codec.Model, error) {
	switch {
	case o.Codec.Off:
		return nil
	case o.Codec.Spec != "":
		return func(b codec.Backend) (*codec.Model, error) { return OpenCodec(o.Codec.Spec, b, o.Codec.Precision) }
	case o.Files != nil:
		f := *o.Files
		return func(b codec.Backend) (*codec.Model, error) { return f.openCodec(b, o.Codec.Precision) }
	}
	return nil
}

// OpenCodec opens the codec of spec on b: a codec directory, a checkpoint
// directory (its speech_tokenizer/), a pulled hub id ORG/NAME[@REV], or
// synth:SIZE[+outliers][@SEED] (the synthetic codec of that model, seed 1
// unless given; SIZE may also be "real", the real codec's geometry).
// precision "" means fp32, "auto" the level's default (CodecSettings).
func OpenCodec(spec string, b codec.Backend, precision string) (*codec.Model, error) {
	s, ok, err := predictor.SplitSynth(spec)
	if err != nil {
		return nil, fmt.Errorf("host: codec: %w", err)
	}
	if ok {
		return ModelFiles{Synth: &s}.openCodec(b, precision)
	}
	f, err := ResolveModel(spec)
	if err != nil {
		return nil, fmt.Errorf("host: codec of %s: %w", spec, err)
	}
	return f.openCodec(b, precision)
}

// ResolveCodecPrecision returns a codec precision in its canonical form:
// "auto" as the active kernel level's default (simd.DefaultCodecPrecision),
// anything else as codec.ParsePrecision checks and spells it. The omni
// command's --codec-precision and CodecSettings.Precision both go through
// it.
func ResolveCodecPrecision(p string) (string, error) {
	if p == "auto" {
		return simd.DefaultCodecPrecision(), nil
	}
	return codec.ParsePrecision(p)
}

// codecPrecision resolves CodecSettings.Precision: "" is fp32, the rest as
// ResolveCodecPrecision.
func codecPrecision(p string) (string, error) {
	if p == "" {
		return "fp32", nil
	}
	return ResolveCodecPrecision(p)
}

// openCodec opens f's codec on b: the synthetic codec of a synthetic model
// (SynthCodecConfig), else the one in f.Codec.
func (f ModelFiles) openCodec(b codec.Backend, precision string) (*codec.Model, error) {
	precision, err := codecPrecision(precision)
	if err != nil {
		return nil, fmt.Errorf("host: codec: %w", err)
	}
	var m *codec.Model
	if f.Synth != nil {
		m, err = codec.NewSynthetic(SynthCodecConfig(f.Synth.Size), f.Synth.Seed, b, precision)
	} else {
		m, err = codec.Load(f.Codec, b, precision)
	}
	if err != nil {
		return nil, fmt.Errorf("host: codec of %s: %w", f.Spec, err)
	}
	return m, nil
}

// SynthCodecConfig returns the geometry of the synthetic codec that goes
// with the synthetic model of size: the real codec's for 0.6b and 1.7b (and
// "real"); for the small models codec.TinyConfig with the real interface —
// 2048 entries per codebook (the synthetic talker's codes) and strides
// 8·5·4·3, so a frame is 1920 samples at 24 kHz as with the real codec —
// on narrow layers (decoder_dim 512: every vocoder width a multiple of 32,
// as the int8 matrices' blocks need), cheap enough for tests.
func SynthCodecConfig(size string) codec.Config {
	size, _ = predictor.SynthBaseSize(size) // a Base model has its size's codec
	switch size {
	case "0.6b", "1.7b", "real":
		return codec.RealConfig()
	}
	c := codec.TinyConfig()
	c.CodebookSize = 2048
	c.UpsampleRates = []int{8, 5, 4, 3}
	return c
}

// openCodecStage opens the codec of o on its own kernel pool; nil, nil
// when o has no codec.
func openCodecStage(o *Options) (*codec.Model, *simd.Backend, error) {
	load := o.codecLoader()
	if load == nil {
		return nil, nil, nil
	}
	busy, threads := o.codecThreads()
	cb := simd.NewBackend(threads)
	if busy < threads {
		o.Engine.CodecBusyThreads = busy
	}
	spec := o.Codec.Spec
	if spec == "" {
		spec = o.Model
	}
	m, err := o.cache.openCodec(spec, load, cb, cb, o.Codec.Precision)
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

// codecThreads returns the codec's threads while generation runs and the
// size of its pool: Codec.Threads (default Options.Threads, default
// simd.DefaultThreads()) and the larger of that and the model's threads.
func (o *Options) codecThreads() (busy, pool int) {
	model := o.Threads
	if model <= 0 {
		model = simd.DefaultThreads()
	}
	busy = o.Codec.Threads
	if busy <= 0 {
		busy = model
	}
	return busy, max(busy, model)
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
