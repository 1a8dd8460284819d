package codec

import (
	"hash/fnv"
	"math"
	"strings"
)

// SynthTensor returns the deterministic synthetic values of tensor t for
// seed: uniform noise scaled by the tensor's role (unit-variance matrices and
// convolutions, small biases, norm gains near 1, layer scales near 0.01,
// SnakeBeta α/β near 0 in log scale, cluster usages in [0.5, 1.5] with a few
// below 1e-5, embedding sums that give codebook entries in [-1, 1]).
func SynthTensor(t Tensor, seed uint64) []float32 {
	h := fnv.New64a()
	h.Write([]byte(t.Name))
	r := splitmix{s: seed ^ h.Sum64()}
	v := make([]float32, t.Elems())
	u := func() float32 { return float32(r.next()>>40)/float32(1<<23) - 1 } // [-1, 1)
	name := t.Name
	switch {
	case strings.HasSuffix(name, "cluster_usage"):
		for i := range v {
			v[i] = 1 + 0.5*u()
			if i%97 == 5 {
				v[i] = 1e-7
			}
		}
	case strings.HasSuffix(name, "embedding_sum"):
		use := SynthTensor(Tensor{Name: strings.TrimSuffix(name, "embedding_sum") + "cluster_usage", Shape: t.Shape[:1]}, seed)
		q := t.Shape[1]
		for i := range v {
			v[i] = u() * max(use[i/q], 1e-5)
		}
	case strings.HasSuffix(name, "layernorm.weight"), strings.HasSuffix(name, "norm.weight"):
		for i := range v {
			v[i] = 1 + 0.1*u()
		}
	case strings.HasSuffix(name, "layer_scale.scale"):
		for i := range v {
			v[i] = 0.01 * (1 + 0.5*u())
		}
	case strings.HasSuffix(name, "gamma"):
		for i := range v {
			v[i] = 0.05 * (1 + 0.5*u())
		}
	case strings.HasSuffix(name, ".alpha"), strings.HasSuffix(name, ".beta"):
		for i := range v {
			v[i] = 0.1 * u()
		}
	case strings.HasSuffix(name, ".bias"):
		for i := range v {
			v[i] = 0.02 * u()
		}
	default: // matrices and kernels: variance 1/fan_in
		fan := 1
		for _, d := range t.Shape[1:] {
			fan *= d
		}
		if strings.Contains(name, "upsample.") && strings.HasSuffix(name, ".0.conv.weight") ||
			strings.Contains(name, ".block.1.conv.weight") { // ConvTranspose1d (in, out, k)
			fan = t.Shape[0]
		}
		s := float32(math.Sqrt(3 / float64(fan)))
		switch {
		case strings.Contains(name, "conv2.conv.weight"): // residual branches: small, so 12 stacked units stay bounded
			s *= 0.1
		case strings.HasPrefix(name, "decoder.decoder.") && t.Shape[0] == 1: // the output conv: a moderate level
			s *= 0.05
		}
		for i := range v {
			v[i] = s * u()
		}
	}
	return v
}

// splitmix is the SplitMix64 generator.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// NewSynthetic builds a model of geometry cfg with the deterministic
// synthetic weights of seed (see SynthTensor), in memory.
func NewSynthetic(cfg Config, seed uint64, b Backend, precision string) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	byName := map[string]Tensor{}
	for _, t := range ExpectedTensors(&cfg) {
		byName[t.Name] = t
	}
	return build(cfg, func(name string) ([]float32, error) {
		t, ok := byName[name]
		if !ok {
			return nil, errorf(ErrNoTensor, "tensor %s missing", name)
		}
		return SynthTensor(t, seed), nil
	}, b, precision, false)
}

// WriteSynthetic writes the synthetic codec decoder of cfg and seed to dir
// in the speech_tokenizer layout (config.json + model.safetensors, F32,
// every tensor of ExpectedTensors including the optional ones); see
// WriteSyntheticCodec for one with its encoder too.
func WriteSynthetic(dir string, cfg Config, seed uint64) error {
	return WriteSyntheticCodec(dir, cfg, nil, seed)
}
