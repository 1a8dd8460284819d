package predictor

import (
	"fmt"
	"sort"

	"github.com/omni-tts/omni/speaker"
)

// Bounds of a config's counts, far above any Qwen3-TTS model's (28 talker
// layers, 16 code groups): the tensor list and the graph are built by
// looping over them, so a config.json naming 2^31 layers would exhaust
// memory before any tensor is looked at.
const (
	MaxLayers     = 1024
	MaxCodeGroups = 256
)

// DecoderConfig is the geometry of one Qwen3 decoder stack (the talker or the
// code predictor).
type DecoderConfig struct {
	Layers       int     // num_hidden_layers
	Hidden       int     // hidden_size
	Intermediate int     // intermediate_size (SwiGLU)
	Heads        int     // num_attention_heads
	KVHeads      int     // num_key_value_heads
	HeadDim      int     // head_dim
	RMSEps       float64 // rms_norm_eps
	RopeTheta    float64 // rope_theta
	MaxPositions int     // max_position_embeddings
}

// Validate checks that the geometry is one the graph can run.
func (d *DecoderConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"num_hidden_layers", d.Layers}, {"hidden_size", d.Hidden}, {"intermediate_size", d.Intermediate},
		{"num_attention_heads", d.Heads}, {"num_key_value_heads", d.KVHeads}, {"head_dim", d.HeadDim},
		{"max_position_embeddings", d.MaxPositions},
	} {
		if f.v <= 0 {
			return fmt.Errorf("%s %d not positive", f.name, f.v)
		}
	}
	if d.Layers > MaxLayers {
		return fmt.Errorf("num_hidden_layers %d above %d", d.Layers, MaxLayers)
	}
	if d.Heads%d.KVHeads != 0 {
		return fmt.Errorf("num_attention_heads %d not a multiple of num_key_value_heads %d", d.Heads, d.KVHeads)
	}
	if d.HeadDim%2 != 0 {
		return fmt.Errorf("head_dim %d is odd (rotate-half RoPE needs it even)", d.HeadDim)
	}
	if !(d.RMSEps > 0 && d.RMSEps < 1) {
		return fmt.Errorf("rms_norm_eps %g outside (0, 1)", d.RMSEps)
	}
	if !(d.RopeTheta > 1) {
		return fmt.Errorf("rope_theta %g not above 1", d.RopeTheta)
	}
	return nil
}

// GenerationConfig holds generation_config.json: the sampling defaults for
// codebook 0 (talker) and codebooks 1..15 (sub-talker).
type GenerationConfig struct {
	DoSample          bool    // do_sample
	Temperature       float64 // temperature
	TopK              int     // top_k (0 = off)
	TopP              float64 // top_p
	RepetitionPenalty float64 // repetition_penalty (on earlier codebook-0 ids)
	MaxNewTokens      int     // max_new_tokens (frames)
	MinNewTokens      int     // frames before EOS may be sampled (hard-coded 2 in the reference generate)

	SubtalkerDoSample    bool    // subtalker_dosample
	SubtalkerTemperature float64 // subtalker_temperature
	SubtalkerTopK        int     // subtalker_top_k
	SubtalkerTopP        float64 // subtalker_top_p
}

// DefaultGeneration returns the values the reference uses when
// generation_config.json lacks a key (max_new_tokens 2048; the released
// snapshots set 8192).
func DefaultGeneration() GenerationConfig {
	return GenerationConfig{
		DoSample: true, Temperature: 0.9, TopK: 50, TopP: 1.0, RepetitionPenalty: 1.05,
		MaxNewTokens: 2048, MinNewTokens: 2,
		SubtalkerDoSample: true, SubtalkerTemperature: 0.9, SubtalkerTopK: 50, SubtalkerTopP: 1.0,
	}
}

// Validate checks the sampling values' ranges.
func (g *GenerationConfig) Validate() error {
	for _, s := range []struct {
		what       string
		temp, topP float64
		topK       int
	}{{"", g.Temperature, g.TopP, g.TopK}, {"subtalker_", g.SubtalkerTemperature, g.SubtalkerTopP, g.SubtalkerTopK}} {
		if !(s.temp >= 0) {
			return fmt.Errorf("%stemperature %g negative", s.what, s.temp)
		}
		if !(s.topP > 0 && s.topP <= 1) {
			return fmt.Errorf("%stop_p %g outside (0, 1]", s.what, s.topP)
		}
		if s.topK < -1 {
			return fmt.Errorf("%stop_k %d below -1", s.what, s.topK)
		}
	}
	if !(g.RepetitionPenalty > 0) {
		return fmt.Errorf("repetition_penalty %g not positive", g.RepetitionPenalty)
	}
	if g.MaxNewTokens <= 0 {
		return fmt.Errorf("max_new_tokens %d not positive", g.MaxNewTokens)
	}
	if g.MinNewTokens < 0 {
		return fmt.Errorf("min_new_tokens %d negative", g.MinNewTokens)
	}
	return nil
}

// Config is a Qwen3-TTS checkpoint's configuration: config.json's top level,
// its talker_config and talker_config.code_predictor_config, and
// generation_config.json.
type Config struct {
	ModelType string // model_type ("qwen3_tts")
	ModelSize string // tts_model_size ("0b6", "1b7"; "tiny" for the synthetic tiny model)
	ModelKind string // tts_model_type ("base", "custom_voice", "voice_design")

	Talker    DecoderConfig // talker_config
	Predictor DecoderConfig // talker_config.code_predictor_config

	TalkerVocab    int // talker_config.vocab_size (3072: codebook-0 codes and special ids)
	PredictorVocab int // code_predictor_config.vocab_size (2048 per residual codebook)
	CodeGroups     int // talker_config.num_code_groups (16 codebooks per frame)
	TextVocab      int // talker_config.text_vocab_size (151936)
	TextHidden     int // talker_config.text_hidden_size (2048)

	// Codec-side special ids (talker vocabulary).
	CodecPad, CodecBos, CodecEos                           int
	CodecThink, CodecNothink, CodecThinkBos, CodecThinkEos int
	// Text-side special ids (text vocabulary).
	TTSPad, TTSBos, TTSEos, ImStart, ImEnd, Assistant int

	LanguageIDs     map[string]int    // codec_language_id: language → talker id
	SpeakerIDs      map[string]int    // spk_id: preset speaker → talker id (CustomVoice)
	SpeakerDialects map[string]string // spk_is_dialect: speaker → dialect (speakers with false omitted)

	// SpeakerEncoder is speaker_encoder_config (Base models: the geometry
	// of the speaker_encoder.* tensors, enc_dim the talker's hidden size);
	// nil when config.json has none.
	SpeakerEncoder *speaker.Config

	Generation GenerationConfig
}

// HasProjection reports whether the talker → predictor projection
// (small_to_mtp_projection, a Linear with bias) exists: it does when the
// talker is wider than the predictor (1.7B), and is the identity otherwise.
func (c *Config) HasProjection() bool { return c.Talker.Hidden != c.Predictor.Hidden }

// Validate checks sizes, geometry and that every special id lies inside its
// vocabulary. Errors wrap ErrConfig and name the key as ParseConfig does
// ("talker_config.code_predictor_config.head_dim", "generation_config.json:
// top_p").
func (c *Config) Validate() error {
	if err := c.validateModel(); err != nil {
		return errorf(ErrConfig, "%v", err)
	}
	if err := c.Generation.Validate(); err != nil {
		return errorf(ErrConfig, "generation_config.json: %v", err)
	}
	return nil
}

// validateModel checks what config.json holds; messages name the dotted
// key of the value at fault.
func (c *Config) validateModel() error {
	if err := c.Talker.Validate(); err != nil {
		return fmt.Errorf("talker_config: %v", err)
	}
	if err := c.Predictor.Validate(); err != nil {
		return fmt.Errorf("talker_config.code_predictor_config: %v", err)
	}
	if c.CodeGroups < 2 || c.CodeGroups > MaxCodeGroups {
		return fmt.Errorf("talker_config.num_code_groups %d outside [2, %d]", c.CodeGroups, MaxCodeGroups)
	}
	if c.PredictorVocab <= 0 || c.TalkerVocab <= c.PredictorVocab {
		return fmt.Errorf("talker_config.vocab_size %d must exceed talker_config.code_predictor_config.vocab_size %d > 0", c.TalkerVocab, c.PredictorVocab)
	}
	if c.TextVocab <= 0 || c.TextHidden <= 0 {
		return fmt.Errorf("talker_config.text_vocab_size %d, talker_config.text_hidden_size %d: not positive", c.TextVocab, c.TextHidden)
	}
	for _, id := range []struct {
		name string
		v    int
	}{
		{"codec_pad_id", c.CodecPad}, {"codec_bos_id", c.CodecBos}, {"codec_eos_token_id", c.CodecEos},
		{"codec_think_id", c.CodecThink}, {"codec_nothink_id", c.CodecNothink},
		{"codec_think_bos_id", c.CodecThinkBos}, {"codec_think_eos_id", c.CodecThinkEos},
	} {
		if id.v < c.PredictorVocab || id.v >= c.TalkerVocab {
			return fmt.Errorf("talker_config.%s %d outside the special range [%d, %d)", id.name, id.v, c.PredictorVocab, c.TalkerVocab)
		}
	}
	for _, id := range []struct {
		name string
		v    int
	}{
		{"tts_pad_token_id", c.TTSPad}, {"tts_bos_token_id", c.TTSBos}, {"tts_eos_token_id", c.TTSEos},
		{"im_start_token_id", c.ImStart}, {"im_end_token_id", c.ImEnd}, {"assistant_token_id", c.Assistant},
	} {
		if id.v < 0 || id.v >= c.TextVocab {
			return fmt.Errorf("%s %d outside the text vocabulary [0, %d)", id.name, id.v, c.TextVocab)
		}
	}
	for _, t := range []struct {
		key string
		m   map[string]int
	}{{"codec_language_id", c.LanguageIDs}, {"spk_id", c.SpeakerIDs}} {
		for _, name := range sortedKeys(t.m) {
			if v := t.m[name]; v < 0 || v >= c.TalkerVocab {
				return fmt.Errorf("talker_config.%s.%s %d outside the talker vocabulary [0, %d)", t.key, name, v, c.TalkerVocab)
			}
		}
	}
	if e := c.SpeakerEncoder; e != nil {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("speaker_encoder_config: %v", err)
		}
		if e.EncDim != c.Talker.Hidden {
			return fmt.Errorf("speaker_encoder_config.enc_dim %d differs from talker_config.hidden_size %d (the x-vector is a talker row)", e.EncDim, c.Talker.Hidden)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
