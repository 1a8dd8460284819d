package predictor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ExpectedTensors returns every tensor the talker and the code predictor
// need, with the shapes c implies (names and shapes as stored in the Hugging
// Face checkpoints; the speaker encoder is not needed and not listed). Shapes
// are PyTorch's (out, in); DType is BF16, the checkpoints' storage type; the
// list is sorted by name.
func ExpectedTensors(c *Config) []TensorInfo {
	var out []TensorInfo
	add := func(name string, shape ...int) {
		n, _ := elemCount(shape)
		out = append(out, TensorInfo{Name: name, DType: BF16, Shape: shape, Size: 2 * n})
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
	slices.SortFunc(out, func(a, b TensorInfo) int { return strings.Compare(a.Name, b.Name) })
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
	have := map[string]TensorInfo{}
	for _, t := range src.Tensors() {
		have[t.Name] = t
	}
	for _, want := range ExpectedTensors(src.Config()) {
		got, ok := have[want.Name]
		if !ok {
			return &TensorError{File: sourceFile(src, want.Name), Name: want.Name, Index: -1, Err: ErrNoTensor}
		}
		if !slices.Equal(got.Shape, want.Shape) {
			return &ShapeError{File: sourceFile(src, want.Name), Name: want.Name, Want: want.Shape, Got: got.Shape}
		}
		if err := floatDType(got.DType); err != nil {
			return &TensorError{File: sourceFile(src, want.Name), Name: want.Name, Index: -1, Err: err}
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
//   - "synth:SIZE[+outliers][@SEED]": a synthetic model (NewSynth) of SIZE
//     tiny, tiny-wide, 0.6b or 1.7b, with outlier channels when "+outliers"
//     is given, seed SEED (default 1).
func OpenModel(spec string) (Source, error) {
	if rest, ok := strings.CutPrefix(spec, "synth:"); ok {
		size, outliers, seed, err := parseSynthSpec(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrSpec, spec, err)
		}
		return NewSynth(size, outliers, seed)
	}
	if spec == "" {
		return nil, fmt.Errorf("%w: empty model spec (a checkpoint directory or synth:SIZE)", ErrSpec)
	}
	return OpenCheckpoint(spec)
}

// DefaultSynthSeed is the seed of "synth:SIZE" without "@SEED".
const DefaultSynthSeed = 1

// parseSynthSpec splits "SIZE[+outliers][@SEED]".
func parseSynthSpec(s string) (size string, outliers bool, seed uint64, err error) {
	seed = DefaultSynthSeed
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		v, perr := strconv.ParseUint(s[i+1:], 10, 64)
		if perr != nil {
			return "", false, 0, fmt.Errorf("seed %q is not an unsigned integer", s[i+1:])
		}
		seed, s = v, s[:i]
	}
	size, mod, hasMod := strings.Cut(s, "+")
	if hasMod {
		if mod != "outliers" {
			return "", false, 0, fmt.Errorf("unknown modifier %q (have +outliers)", mod)
		}
		outliers = true
	}
	if !slices.Contains(synthSizes, size) {
		return "", false, 0, fmt.Errorf("unknown size %q (have %s)", size, strings.Join(synthSizes, ", "))
	}
	return size, outliers, seed, nil
}
