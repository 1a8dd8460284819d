package speaker

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// SynthTensor returns deterministic synthetic values for tensor t and seed:
// uniform noise with the variance of PyTorch's default Conv1d init
// (|w| < 1/√(in·kernel)), biases a tenth of that, so activations keep a
// sensible scale through the real geometry.
func SynthTensor(t Tensor, seed uint64) []float32 {
	h := fnv.New64a()
	h.Write([]byte(t.Name))
	s := seed ^ h.Sum64()
	next := func() float32 { // splitmix64 → [-1, 1)
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float32(z>>40)/float32(1<<23) - 1
	}
	v := make([]float32, t.Elems())
	fan := 1
	if len(t.Shape) == 3 {
		fan = t.Shape[1] * t.Shape[2]
	}
	scale := float32(1 / math.Sqrt(float64(fan)))
	if strings.HasSuffix(t.Name, ".bias") {
		scale = 0.1
	}
	for i := range v {
		v[i] = scale * next()
	}
	return v
}

// NewSynthetic builds an encoder of geometry cfg with SynthTensor weights
// for seed (no file), for synthetic Base models and tests.
func NewSynthetic(cfg Config, seed uint64, b Backend, precision string) (*Encoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("speaker: %w", err)
	}
	shapes := map[string]Tensor{}
	for _, t := range ExpectedTensors(&cfg) {
		shapes[t.Name] = t
	}
	get := func(name string) ([]float32, error) {
		t, ok := shapes[name]
		if !ok {
			return nil, fmt.Errorf("speaker: no tensor %s in the geometry", name)
		}
		return SynthTensor(t, seed), nil
	}
	return build(cfg, get, b, precision)
}
