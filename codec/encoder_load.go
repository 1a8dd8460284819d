package codec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/omni-tts/omni/safetensors"
)

// LoadEncoderConfig reads the encoder_config of a codec or checkpoint
// directory's config.json.
func LoadEncoderConfig(path string) (EncoderConfig, error) {
	dir := Dir(path)
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return EncoderConfig{}, fmt.Errorf("codec: %w", err)
	}
	c, err := ParseEncoderConfig(b)
	if err != nil {
		return EncoderConfig{}, fmt.Errorf("%s: %w", dir, err)
	}
	return c, nil
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
	file := filepath.Join(dir, "model.safetensors")
	f, err := safetensors.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("codec: %s: no model.safetensors", dir)
		}
		return nil, fmt.Errorf("codec: %w", err)
	}
	defer f.Close()
	if err := checkEncoderTensors(&cfg, f); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	get := func(name string) ([]float32, error) {
		ti, ok := f.Info(name)
		if !ok {
			return nil, errorf(ErrNoTensor, "tensor %s missing", name)
		}
		v := make([]float32, ti.Elems())
		if err := f.ReadF32(name, v); err != nil {
			return nil, fmt.Errorf("codec: %w", err)
		}
		if err := checkFinite(name, v); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return v, nil
	}
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
