package speaker

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/omni-tts/omni/safetensors"
)

// LoadConfig reads the speaker encoder's config from a Base checkpoint
// directory's config.json.
func LoadConfig(dir string) (Config, error) {
	file := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(file)
	if err != nil {
		return Config{}, fmt.Errorf("speaker: %w", err)
	}
	c, err := ParseCheckpointConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// Load opens a Base checkpoint directory (config.json with
// speaker_encoder_config, model.safetensors holding the speaker_encoder.*
// tensors), checks every tensor against the config (presence, shape, a
// float dtype, finite values; a mismatch is refused by name) and uploads
// the weights to b in precision ("fp32" or a precision b offers).
func Load(dir string, b Backend, precision string) (*Encoder, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "model.safetensors")
	f, err := safetensors.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("speaker: %s: no model.safetensors", dir)
		}
		return nil, fmt.Errorf("speaker: %w", err)
	}
	defer f.Close()
	for _, want := range ExpectedTensors(&cfg) {
		got, ok := f.Info(want.Name)
		if !ok {
			return nil, fmt.Errorf("speaker: %s: tensor %s missing", file, want.Name)
		}
		if !slices.Equal(got.Shape, want.Shape) {
			return nil, fmt.Errorf("speaker: %s: tensor %s has shape %v, the config implies %v", file, want.Name, got.Shape, want.Shape)
		}
		if err := safetensors.FloatDType(got.DType); err != nil {
			return nil, fmt.Errorf("speaker: %s: tensor %s: %w", file, want.Name, err)
		}
	}
	get := func(name string) ([]float32, error) {
		ti, _ := f.Info(name)
		v := make([]float32, ti.Elems())
		if err := f.ReadF32(name, v); err != nil {
			return nil, fmt.Errorf("speaker: %w", err)
		}
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("speaker: %s: tensor %s [%d] = %v is not finite", file, name, i, x)
			}
		}
		return v, nil
	}
	return build(cfg, get, b, precision)
}
