package codec

import (
	"fmt"
	"slices"

	"github.com/omni-tts/omni/safetensors"
)

// LoadEncoderConfig reads the encoder_config of a codec or checkpoint
// directory's config.json.
func LoadEncoderConfig(path string) (EncoderConfig, error) {
	return readConfig(path, ParseEncoderConfig)
}

// LoadEncoder opens the encoder of a codec directory (config.json with
// encoder_config + model.safetensors holding the encoder.* tensors) or of a
// checkpoint directory whose speech_tokenizer/ holds them, checks every
// tensor it reads against the config (presence, shape, a float dtype,
// finite values; a mismatch is refused by name) and uploads the weights to
// b in precision (see EncoderPrecisions).
func LoadEncoder(path string, b Backend, precision string) (*Encoder, error) {
	dir := Dir(path)
	cfg, err := LoadEncoderConfig(dir)
	if err != nil {
		return nil, err
	}
	f, get, err := openWeights(dir, func(t tensorSet) error { return checkEncoderTensors(&cfg, t) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return buildEncoder(cfg, get, b, precision)
}

// checkEncoderTensors verifies that every tensor the encoder reads is
// present with its shape and a float dtype (optional ones only when present).
func checkEncoderTensors(cfg *EncoderConfig, f tensorSet) error {
	for _, want := range EncoderTensors(cfg) {
		got, ok := f.Info(want.Name)
		if !ok {
			if want.Optional {
				continue
			}
			return errorf(ErrNoTensor, "tensor %s missing", want.Name)
		}
		if !slices.Equal(got.Shape, want.Shape) {
			return &ShapeError{Name: want.Name, Want: want.Shape, Got: got.Shape}
		}
		if err := safetensors.FloatDType(got.DType); err != nil {
			return fmt.Errorf("codec: tensor %s: %w", want.Name, err)
		}
	}
	return nil
}

// NewSyntheticEncoder builds an encoder of geometry cfg with the
// deterministic synthetic weights of seed (SynthTensor of every tensor of
// EncoderTensors), in memory; the synthetic codec's encoder half.
func NewSyntheticEncoder(cfg EncoderConfig, seed uint64, b Backend, precision string) (*Encoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	byName := map[string]Tensor{}
	for _, t := range EncoderTensors(&cfg) {
		byName[t.Name] = t
	}
	return buildEncoder(cfg, func(name string) ([]float32, error) {
		t, ok := byName[name]
		if !ok {
			return nil, errorf(ErrNoTensor, "tensor %s missing", name)
		}
		return SynthTensor(t, seed), nil
	}, b, precision)
}
