package predictor

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/omni-tts/omni/safetensors"
	"github.com/omni-tts/omni/speaker"
)

// Synthetic weight scales, chosen so activations stay finite through every
// layer and logits are neither flat nor one-hot, the way a trained model's
// are:
//
//   - q, k, v, gate, up, text_projection and small_to_mtp_projection
//     matrices: std 1/√in (a unit-RMS input gives unit-RMS outputs);
//   - o_proj and down_proj (the residual writers): std 1/√in / √(2·layers),
//     so the residual stream grows slowly over the stack;
//   - codec_head and the predictor lm heads: std 1.5/√in (logit std ≈ 1.5);
//   - embedding tables: std 0.5; biases: std 0.02;
//   - RMSNorm gains (incl. q_norm, k_norm): 1 + 0.05·noise.
//
// Values are a roughly Gaussian stream bounded by ±3.46 std (normalish).
const (
	synthEmbedStd = 0.5
	synthBiasStd  = 0.02
	synthNormStd  = 0.05
	synthHeadGain = 1.5
)

// Outlier channels (+outliers): synthOutliers hidden channels of each stack
// carry RMSNorm gains drawn uniformly from [synthOutlierMin, synthOutlierMax]
// in every input_layernorm, post_attention_layernorm and final norm, as
// trained LLMs have a few outlier activation channels.
const (
	synthOutliers   = 6
	synthOutlierMin = 20.0
	synthOutlierMax = 60.0
)

// synthSource is a deterministic synthetic model; it implements Source.
type synthSource struct {
	cfg      *Config
	size     string
	seed     uint64
	outliers bool
	tensors  []safetensors.TensorInfo
	specs    map[string]*synthSpec
	// spk holds the speaker_encoder.* tensors of a Base model, whose values
	// are speaker.SynthTensor's for the seed (what speaker.NewSynthetic
	// builds), so a written checkpoint's encoder is the synthetic one.
	spk    map[string]speaker.Tensor
	closed atomic.Bool
}

// synthSpec says how one tensor's values are generated.
type synthSpec struct {
	info     safetensors.TensorInfo
	key      uint64
	base     float32 // 1 for norm gains, 0 otherwise
	std      float32
	outliers []outlierGain // norm gains overridden at outlier channels
}

type outlierGain struct {
	ch   int64
	gain float32
}

// NewSynth builds the synthetic model of the given size ("tiny",
// "tiny-wide", "0.6b", "1.7b"; see SynthConfig), with outlier channels when
// outliers is set. Values are a pure function of (seed, tensor name, index):
// nothing is generated until read, any rows of any tensor can be read alone,
// and the same seed always gives the same model.
func NewSynth(size string, outliers bool, seed uint64) (Source, error) {
	cfg, err := SynthConfig(size)
	if err != nil {
		return nil, err
	}
	s := &synthSource{cfg: cfg, size: size, seed: seed, outliers: outliers, specs: map[string]*synthSpec{}}
	channels := map[string][]int64{
		"talker.model.":                s.outlierChannels("talker.model.", cfg.Talker.Hidden),
		"talker.code_predictor.model.": s.outlierChannels("talker.code_predictor.model.", cfg.Predictor.Hidden),
	}
	for _, t := range ExpectedTensors(cfg) {
		t.DType, t.Size = safetensors.F32, 4*t.Elems()
		s.tensors = append(s.tensors, t)
		s.specs[t.Name] = s.spec(t, channels)
	}
	if cfg.SpeakerEncoder != nil {
		s.spk = map[string]speaker.Tensor{}
		for _, t := range speaker.ExpectedTensors(cfg.SpeakerEncoder) {
			n := int64(t.Elems())
			s.tensors = append(s.tensors, safetensors.TensorInfo{Name: t.Name, DType: safetensors.F32, Shape: slices.Clone(t.Shape), Size: 4 * n})
			s.spk[t.Name] = t
		}
		slices.SortFunc(s.tensors, func(a, b safetensors.TensorInfo) int { return strings.Compare(a.Name, b.Name) })
	}
	return s, nil
}

// readSpeaker fills dst with elements i0 .. i0+len(dst)-1 of speaker
// encoder tensor t (generated whole: the largest is 3 M values, and only
// loading and writing read them).
func (s *synthSource) readSpeaker(t speaker.Tensor, i0 int64, dst []float32) {
	v := speaker.SynthTensor(t, s.seed)
	copy(dst, v[i0:])
}

// speakerInfo returns the TensorInfo of speaker tensor name.
func (s *synthSource) speakerInfo(name string) (speaker.Tensor, safetensors.TensorInfo, bool) {
	t, ok := s.spk[name]
	if !ok {
		return t, safetensors.TensorInfo{}, false
	}
	return t, safetensors.TensorInfo{Name: name, DType: safetensors.F32, Shape: t.Shape, Size: 4 * int64(t.Elems())}, true
}

// outlierChannels picks synthOutliers distinct channels of a stack.
func (s *synthSource) outlierChannels(prefix string, hidden int) []int64 {
	if !s.outliers {
		return nil
	}
	key := nameKey(s.seed, "outliers:"+prefix)
	var out []int64
	for i := uint64(0); len(out) < min(synthOutliers, hidden); i++ {
		c := int64(uniform01(key, i) * float64(hidden))
		dup := false
		for _, o := range out {
			dup = dup || o == c
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// spec derives a tensor's generator from its name and shape.
func (s *synthSource) spec(t safetensors.TensorInfo, channels map[string][]int64) *synthSpec {
	sp := &synthSpec{info: t, key: nameKey(s.seed, t.Name)}
	name := t.Name
	in := 1.0
	if len(t.Shape) == 2 {
		in = float64(t.Shape[1])
	}
	layers := s.cfg.Talker.Layers
	if strings.HasPrefix(name, "talker.code_predictor.") {
		layers = s.cfg.Predictor.Layers
	}
	switch {
	case strings.HasSuffix(name, "norm.weight"):
		sp.base, sp.std = 1, synthNormStd
		for prefix, chs := range channels {
			if !strings.HasPrefix(name, prefix) || strings.Contains(name, "q_norm") || strings.Contains(name, "k_norm") {
				continue
			}
			for _, c := range chs {
				u := uniform01(nameKey(s.seed, "gain:"+name), uint64(c))
				sp.outliers = append(sp.outliers, outlierGain{ch: c, gain: float32(synthOutlierMin + (synthOutlierMax-synthOutlierMin)*u)})
			}
		}
	case strings.HasSuffix(name, ".bias"):
		sp.std = synthBiasStd
	case strings.Contains(name, "embedding"):
		sp.std = synthEmbedStd
	case strings.Contains(name, "codec_head") || strings.Contains(name, "lm_head"):
		sp.std = float32(synthHeadGain / math.Sqrt(in))
	case strings.Contains(name, "o_proj") || strings.Contains(name, "down_proj"):
		sp.std = float32(1 / math.Sqrt(in) / math.Sqrt(2*float64(layers)))
	default:
		sp.std = float32(1 / math.Sqrt(in))
	}
	return sp
}

// fill writes the values of elements i0 .. i0+len(dst)-1.
func (sp *synthSpec) fill(dst []float32, i0 int64) {
	// Inlined normalish: counter x = key + (i+1)·golden, the lane sum of
	// mix64(x) centred and scaled in float32 (same values as normalish).
	base, key := sp.base, sp.key
	k := sp.std * float32(normalishInvStd)
	x := key + (uint64(i0)+1)*golden
	for i := range dst {
		z := mix64(x)
		x += golden
		l := z&0x0000ffff0000ffff + z>>16&0x0000ffff0000ffff
		s := int64(l&0xffffffff+l>>32) - normalishMean
		dst[i] = base + k*float32(s)
	}
	for _, o := range sp.outliers {
		if o.ch >= i0 && o.ch < i0+int64(len(dst)) {
			dst[o.ch-i0] = o.gain
		}
	}
}

// Config implements Source.
func (s *synthSource) Config() *Config { return s.cfg }

// Tensors implements Source: ExpectedTensors of the config, as F32.
func (s *synthSource) Tensors() []safetensors.TensorInfo {
	out := make([]safetensors.TensorInfo, len(s.tensors))
	for i, t := range s.tensors {
		t.Shape = append([]int(nil), t.Shape...)
		out[i] = t
	}
	return out
}

// String returns the model spec ("synth:0.6b+outliers@1").
func (s *synthSource) String() string {
	return Synth{Size: s.size, Outliers: s.outliers, Seed: s.seed}.String()
}

// ReadF32 implements Source.
func (s *synthSource) ReadF32(name string, dst []float32) error {
	if st, info, ok := s.speakerInfo(name); ok && !s.closed.Load() {
		if int64(len(dst)) != info.Elems() {
			return &safetensors.TensorError{File: s.String(), Name: name, Index: -1,
				Err: fmt.Errorf("%w: shape %v has %d elements, destination holds %d", ErrShape, info.Shape, info.Elems(), len(dst))}
		}
		s.readSpeaker(st, 0, dst)
		return nil
	}
	t, sp, err := s.lookup(name)
	if err != nil {
		return err
	}
	if int64(len(dst)) != t.Elems() {
		return &safetensors.TensorError{File: s.String(), Name: name, Index: -1,
			Err: fmt.Errorf("%w: shape %v has %d elements, destination holds %d", ErrShape, t.Shape, t.Elems(), len(dst))}
	}
	sp.fillParallel(dst)
	return nil
}

// fillParallel is fill(dst, 0) split over GOMAXPROCS goroutines for a big
// tensor (a load, never a per-token read): every value is a function of its
// index alone, so the split does not change a bit.
func (sp *synthSpec) fillParallel(dst []float32) {
	const minChunk = 1 << 16
	workers := min(runtime.GOMAXPROCS(0), len(dst)/minChunk)
	if workers <= 1 {
		sp.fill(dst, 0)
		return
	}
	var wg sync.WaitGroup
	step := (len(dst) + workers - 1) / workers
	for lo := 0; lo < len(dst); lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			sp.fill(dst[lo:hi], int64(lo))
		}(lo, min(lo+step, len(dst)))
	}
	wg.Wait()
}

// ReadRowsF32 implements Source.
func (s *synthSource) ReadRowsF32(name string, row0, n int, dst []float32) error {
	if st, info, ok := s.speakerInfo(name); ok && !s.closed.Load() {
		cols, err := safetensors.RowSpan(info, row0, n, len(dst))
		if err != nil {
			return &safetensors.TensorError{File: s.String(), Name: name, Index: -1, Err: err}
		}
		s.readSpeaker(st, int64(row0)*cols, dst)
		return nil
	}
	t, sp, err := s.lookup(name)
	if err != nil {
		return err
	}
	cols, err := safetensors.RowSpan(t, row0, n, len(dst))
	if err != nil {
		return &safetensors.TensorError{File: s.String(), Name: name, Index: -1, Err: err}
	}
	sp.fill(dst, int64(row0)*cols)
	return nil
}

// Close implements Source; reads after Close fail with ErrClosed.
func (s *synthSource) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *synthSource) lookup(name string) (safetensors.TensorInfo, *synthSpec, error) {
	if s.closed.Load() {
		return safetensors.TensorInfo{}, nil, &safetensors.TensorError{File: s.String(), Name: name, Index: -1, Err: ErrClosed}
	}
	sp, ok := s.specs[name]
	if !ok {
		return safetensors.TensorInfo{}, nil, &safetensors.TensorError{File: s.String(), Name: name, Index: -1, Err: ErrNoTensor}
	}
	return sp.info, sp, nil
}
