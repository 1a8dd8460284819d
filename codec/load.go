package codec

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

// Dir returns the codec directory for path: path/speech_tokenizer when that
// holds a config.json (a Qwen3-TTS checkpoint directory), else path itself.
func Dir(path string) string {
	sub := filepath.Join(path, "speech_tokenizer")
	if _, err := os.Stat(filepath.Join(sub, "config.json")); err == nil {
		return sub
	}
	return path
}

// LoadConfig reads the config.json of a codec or checkpoint directory.
func LoadConfig(path string) (Config, error) {
	return readConfig(path, ParseConfig)
}

// readConfig parses the config.json of the codec directory of path (Dir)
// with parse, errors naming the directory: the decoder's and the
// encoder's configs are read alike.
func readConfig[C any](path string, parse func([]byte) (C, error)) (C, error) {
	dir := Dir(path)
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		var zero C
		return zero, fmt.Errorf("codec: %w", err)
	}
	c, err := parse(b)
	if err != nil {
		return c, fmt.Errorf("%s: %w", dir, err)
	}
	return c, nil
}

// openWeights opens the model.safetensors of codec directory dir, checks
// its tensors with check (presence, shapes, dtypes; refused by name), and
// returns the file and a reader of one tensor's finite float32 values (a
// NaN or infinity refused naming the file and tensor). The caller closes
// the file.
func openWeights(dir string, check func(tensorSet) error) (*safetensors.File, weightSet, error) {
	file := filepath.Join(dir, "model.safetensors")
	f, err := safetensors.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("codec: %s: no model.safetensors", dir)
		}
		return nil, nil, fmt.Errorf("codec: %w", err)
	}
	if err := check(f); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", file, err)
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
	return f, get, nil
}

// Load opens a codec directory (config.json + model.safetensors in the
// speech_tokenizer layout) or a checkpoint directory whose speech_tokenizer/
// holds them, checks every tensor against the config (presence, shape, a
// float dtype, finite values; a mismatch is refused by name), and uploads
// the weights to b in precision ("fp32" or a reduced precision b offers).
func Load(path string, b Backend, precision string) (*Model, error) {
	dir := Dir(path)
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	f, get, err := openWeights(dir, func(t tensorSet) error { return checkTensors(&cfg, t) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return build(cfg, get, b, precision, false)
}

// tensorSet is what checkTensors needs of a file.
type tensorSet interface {
	Info(name string) (safetensors.TensorInfo, bool)
}

// checkTensors verifies that every tensor the config implies is present
// with its shape and a float dtype.
func checkTensors(cfg *Config, f tensorSet) error {
	for _, want := range ExpectedTensors(cfg) {
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

// checkFinite returns an ErrNonFinite error naming the tensor and the index
// of its first NaN or infinity.
func checkFinite(name string, v []float32) error {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errorf(ErrNonFinite, "tensor %s [%d] = %v", name, i, x)
		}
	}
	return nil
}
