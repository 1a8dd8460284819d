package predictor

import (
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"slices"
	"strconv"
	"strings"
)

// ExpectedTensors returns every tensor the talker and the code predictor
// need, with the shapes c implies (names and shapes as stored in the Hugging
// Face checkpoints; the speaker encoder is not needed and not listed). Shapes
// are PyTorch's (out, in); DType is BF16, the checkpoints' storage type; the
// list is sorted by name.
func ExpectedTensors(c *Config) []safetensors.TensorInfo {
	var out []safetensors.TensorInfo
	add := func(name string, shape ...int) {
		n, _ := safetensors.ElemCount(shape)
		out = append(out, safetensors.TensorInfo{Name: name, DType: safetensors.BF16, Shape: shape, Size: 2 * n})
	}
	th, ph := c.Talker.Hidden, c.Predictor.Hidden
	add("talker.model.text_embedding.weight", c.TextVocab, c.TextHidden)
	add("talker.text_projection.linear_fc1.weight", c.TextHidden, c.TextHidden)
	add("talker.text_projection.linear_fc1.bias", c.TextHidden)
	add("talker.text_projection.linear_fc2.weight", th, c.TextHidden)
	add("talker.text_projection.linear_fc2.bias", th)
	add("talker.model.codec_embedding.weight", c.TalkerVocab, th)
	decoderTensors(add, "talker.model.", &c.Talker)
	add("talker.model.norm.weight", th)
	add("talker.codec_head.weight", c.TalkerVocab, th)
	if c.HasProjection() {
		add("talker.code_predictor.small_to_mtp_projection.weight", ph, th)
		add("talker.code_predictor.small_to_mtp_projection.bias", ph)
	}
	for g := 0; g < c.CodeGroups-1; g++ {
		add(fmt.Sprintf("talker.code_predictor.model.codec_embedding.%d.weight", g), c.PredictorVocab, th)
		add(fmt.Sprintf("talker.code_predictor.lm_head.%d.weight", g), c.PredictorVocab, ph)
	}
	decoderTensors(add, "talker.code_predictor.model.", &c.Predictor)
	add("talker.code_predictor.model.norm.weight", ph)
	slices.SortFunc(out, func(a, b safetensors.TensorInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// decoderTensors lists the per-layer tensors of one Qwen3 decoder stack.
func decoderTensors(add func(string, ...int), prefix string, d *DecoderConfig) {
	h, q, kv := d.Hidden, d.Heads*d.HeadDim, d.KVHeads*d.HeadDim
	for l := 0; l < d.Layers; l++ {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		add(p+"input_layernorm.weight", h)
		add(p+"post_attention_layernorm.weight", h)
		add(p+"self_attn.q_proj.weight", q, h)
		add(p+"self_attn.k_proj.weight", kv, h)
		add(p+"self_attn.v_proj.weight", kv, h)
		add(p+"self_attn.o_proj.weight", h, q)
		add(p+"self_attn.q_norm.weight", d.HeadDim)
		add(p+"self_attn.k_norm.weight", d.HeadDim)
		add(p+"mlp.gate_proj.weight", d.Intermediate, h)
		add(p+"mlp.up_proj.weight", d.Intermediate, h)
		add(p+"mlp.down_proj.weight", h, d.Intermediate)
	}
}

// CheckTensors checks that src holds every tensor ExpectedTensors lists, with
// the expected shape and a dtype that converts to float32. It reports the
// first problem in name order: a missing tensor as a *TensorError wrapping
// ErrNoTensor, a wrong shape as a *ShapeError
// ("predictor: tensor talker.model.norm.weight: shape [1023], config says [1024]").
// Extra tensors (the speaker encoder) are allowed.
func CheckTensors(src Source) error {
	have := map[string]safetensors.TensorInfo{}
	for _, t := range src.Tensors() {
		have[t.Name] = t
	}
	for _, want := range ExpectedTensors(src.Config()) {
		got, ok := have[want.Name]
		if !ok {
			return &safetensors.TensorError{File: sourceFile(src, want.Name), Name: want.Name, Index: -1, Err: ErrNoTensor}
		}
		if !slices.Equal(got.Shape, want.Shape) {
			return &ShapeError{File: sourceFile(src, want.Name), Name: want.Name, Want: want.Shape, Got: got.Shape}
		}
		if err := safetensors.FloatDType(got.DType); err != nil {
			return &safetensors.TensorError{File: sourceFile(src, want.Name), Name: want.Name, Index: -1, Err: err}
		}
	}
	return nil
}

// sourceFile names where src keeps the named tensor, for error messages: the
// shard file of a checkpoint, else the source's own name.
func sourceFile(src Source, name string) string {
	if f, ok := src.(interface{ FileOf(string) string }); ok {
		if p := f.FileOf(name); p != "" {
			return p
		}
	}
	if s, ok := src.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}

// OpenModel opens a model spec:
//
//   - a directory: a Hugging Face Qwen3-TTS checkpoint (config.json and
//     model.safetensors, or shards listed in model.safetensors.index.json),
//     checked as OpenCheckpoint does;
//   - "synth:SIZE[+outliers][@SEED]": a synthetic model (ParseSynth).
//
// Programs that also take hub ids (ORG/NAME[@REV]) parse the spec with
// host.ParseModelSpec, which uses ParseSynth for the synth: form.
func OpenModel(spec string) (Source, error) {
	if s, ok, err := ParseSynth(spec); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return s.Open()
	}
	if spec == "" {
		return nil, fmt.Errorf("%w: empty model spec (a checkpoint directory or synth:SIZE)", ErrSpec)
	}
	return OpenCheckpoint(spec)
}

// DefaultSynthSeed is the seed of "synth:SIZE" without "@SEED".
const DefaultSynthSeed = 1

// SynthPrefix starts every synthetic model spec.
const SynthPrefix = "synth:"

// Synth is a parsed synthetic model spec, "synth:SIZE[+outliers][@SEED]".
type Synth struct {
	Size     string // tiny, tiny-wide, 0.6b or 1.7b (see SynthConfig)
	Outliers bool   // +outliers: outlier channels in the norm gains
	Seed     uint64 // @SEED, DefaultSynthSeed when not given
}

// ParseSynth parses spec when it starts with "synth:" (ok true); any other
// spec gives ok false and no error. SIZE must be one NewSynth builds; the
// one modifier is "+outliers"; SEED is an unsigned integer (default
// DefaultSynthSeed). Errors wrap ErrSpec and quote the spec.
func ParseSynth(spec string) (s Synth, ok bool, err error) {
	s, ok, err = SplitSynth(spec)
	if !ok || err != nil {
		return s, ok, err
	}
	if !slices.Contains(synthSizes, s.Size) {
		return s, true, fmt.Errorf("%w: %q: unknown size %q (have %s)", ErrSpec, spec, s.Size, strings.Join(synthSizes, ", "))
	}
	return s, true, nil
}

// SplitSynth is ParseSynth without the size check, for the synthetic codec,
// which also has the size "real" (the real codec's geometry).
func SplitSynth(spec string) (s Synth, ok bool, err error) {
	rest, ok := strings.CutPrefix(spec, SynthPrefix)
	if !ok {
		return Synth{}, false, nil
	}
	s.Seed = DefaultSynthSeed
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		v, perr := strconv.ParseUint(rest[i+1:], 10, 64)
		if perr != nil {
			return s, true, fmt.Errorf("%w: %q: seed %q is not an unsigned integer", ErrSpec, spec, rest[i+1:])
		}
		s.Seed, rest = v, rest[:i]
	}
	size, mod, hasMod := strings.Cut(rest, "+")
	if hasMod {
		if mod != "outliers" {
			return s, true, fmt.Errorf("%w: %q: unknown modifier %q (have +outliers)", ErrSpec, spec, mod)
		}
		s.Outliers = true
	}
	if size == "" {
		return s, true, fmt.Errorf("%w: %q names no size", ErrSpec, spec)
	}
	s.Size = size
	return s, true, nil
}

// Open builds the synthetic model s names (NewSynth).
func (s Synth) Open() (Source, error) { return NewSynth(s.Size, s.Outliers, s.Seed) }

// String returns the spec ("synth:0.6b+outliers@1").
func (s Synth) String() string {
	o := ""
	if s.Outliers {
		o = "+outliers"
	}
	return fmt.Sprintf("%s%s%s@%d", SynthPrefix, s.Size, o, s.Seed)
}
