package predictor

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// config06B is a config.json with the shipped 0.6B CustomVoice values of
// docs/MODEL.md §1 (written by hand, key names as in the checkpoint).
const config06B = `{
  "architectures": ["Qwen3TTSForConditionalGeneration"],
  "model_type": "qwen3_tts",
  "tokenizer_type": "qwen3_tts_tokenizer_12hz",
  "tts_model_size": "0b6",
  "tts_model_type": "custom_voice",
  "im_start_token_id": 151644, "im_end_token_id": 151645, "assistant_token_id": 77091,
  "tts_pad_token_id": 151671, "tts_bos_token_id": 151672, "tts_eos_token_id": 151673,
  "talker_config": {
    "num_hidden_layers": 28, "hidden_size": 1024, "intermediate_size": 3072,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000,
    "rope_scaling": {"interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"},
    "max_position_embeddings": 32768, "vocab_size": 3072,
    "text_vocab_size": 151936, "text_hidden_size": 2048, "num_code_groups": 16,
    "hidden_act": "silu", "attention_bias": false, "position_id_per_seconds": 13,
    "codec_pad_id": 2148, "codec_bos_id": 2149, "codec_eos_token_id": 2150,
    "codec_think_id": 2154, "codec_nothink_id": 2155, "codec_think_bos_id": 2156, "codec_think_eos_id": 2157,
    "codec_language_id": {"english": 2050, "german": 2053, "chinese": 2055, "beijing_dialect": 2074},
    "spk_id": {"vivian": 3065, "dylan": [2878], "eric": 2875},
    "spk_is_dialect": {"vivian": false, "dylan": "beijing_dialect", "eric": "sichuan_dialect"},
    "code_predictor_config": {
      "num_hidden_layers": 5, "hidden_size": 1024, "intermediate_size": 3072,
      "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
      "rms_norm_eps": 1e-06, "rope_theta": 1000000, "rope_scaling": null,
      "max_position_embeddings": 65536, "vocab_size": 2048, "num_code_groups": 16,
      "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention", "full_attention"]
    }
  }
}`

const generation06B = `{"do_sample": true, "temperature": 0.9, "top_k": 50, "top_p": 1.0,
  "repetition_penalty": 1.05, "max_new_tokens": 8192, "subtalker_dosample": true,
  "subtalker_temperature": 0.9, "subtalker_top_k": 50, "subtalker_top_p": 1.0}`

func TestParseConfig06B(t *testing.T) {
	c, err := ParseConfig([]byte(config06B), []byte(generation06B))
	if err != nil {
		t.Fatal(err)
	}
	want := DecoderConfig{Layers: 28, Hidden: 1024, Intermediate: 3072, Heads: 16, KVHeads: 8, HeadDim: 128,
		RMSEps: 1e-6, RopeTheta: 1e6, MaxPositions: 32768}
	if c.Talker != want {
		t.Errorf("Talker = %+v, want %+v", c.Talker, want)
	}
	want.Layers, want.MaxPositions = 5, 65536
	if c.Predictor != want {
		t.Errorf("Predictor = %+v, want %+v", c.Predictor, want)
	}
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"TalkerVocab", c.TalkerVocab, 3072}, {"PredictorVocab", c.PredictorVocab, 2048},
		{"CodeGroups", c.CodeGroups, 16}, {"TextVocab", c.TextVocab, 151936}, {"TextHidden", c.TextHidden, 2048},
		{"CodecPad", c.CodecPad, 2148}, {"CodecBos", c.CodecBos, 2149}, {"CodecEos", c.CodecEos, 2150},
		{"CodecThink", c.CodecThink, 2154}, {"CodecNothink", c.CodecNothink, 2155},
		{"CodecThinkBos", c.CodecThinkBos, 2156}, {"CodecThinkEos", c.CodecThinkEos, 2157},
		{"TTSPad", c.TTSPad, 151671}, {"TTSBos", c.TTSBos, 151672}, {"TTSEos", c.TTSEos, 151673},
		{"ImStart", c.ImStart, 151644}, {"ImEnd", c.ImEnd, 151645}, {"Assistant", c.Assistant, 77091},
		{"german", c.LanguageIDs["german"], 2053}, {"dylan (one-element list)", c.SpeakerIDs["dylan"], 2878},
		{"vivian", c.SpeakerIDs["vivian"], 3065},
		{"MaxNewTokens", c.Generation.MaxNewTokens, 8192}, {"TopK", c.Generation.TopK, 50},
		{"SubtalkerTopK", c.Generation.SubtalkerTopK, 50}, {"MinNewTokens", c.Generation.MinNewTokens, 2},
	} {
		if f.got != f.want {
			t.Errorf("%s = %d, want %d", f.name, f.got, f.want)
		}
	}
	if c.SpeakerDialects["dylan"] != "beijing_dialect" || len(c.SpeakerDialects) != 2 {
		t.Errorf("SpeakerDialects = %v", c.SpeakerDialects)
	}
	if c.HasProjection() {
		t.Error("0.6B HasProjection() = true, want false (Identity)")
	}
	g := c.Generation
	if !g.DoSample || g.Temperature != 0.9 || g.TopP != 1 || g.RepetitionPenalty != 1.05 || !g.SubtalkerDoSample || g.SubtalkerTemperature != 0.9 {
		t.Errorf("Generation = %+v", g)
	}
	// Without generation_config.json the reference fallbacks apply.
	c, err = ParseConfig([]byte(config06B), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Generation.MaxNewTokens != 2048 || c.Generation.TopK != 50 || c.Generation.Temperature != 0.9 {
		t.Errorf("fallback Generation = %+v", c.Generation)
	}
}

// editConfig applies edit to the decoded 0.6B config and re-encodes it.
func editConfig(t *testing.T, edit func(top, talker, pred map[string]any)) []byte {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal([]byte(config06B), &top); err != nil {
		t.Fatal(err)
	}
	tk := top["talker_config"].(map[string]any)
	edit(top, tk, tk["code_predictor_config"].(map[string]any))
	b, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseConfigRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(top, tk, cp map[string]any)
		gen  string
		want string
	}{
		{"missing talker hidden", func(_, tk, _ map[string]any) { delete(tk, "hidden_size") }, "", "config.json: talker_config.hidden_size missing"},
		{"missing predictor vocab", func(_, _, cp map[string]any) { delete(cp, "vocab_size") }, "", "talker_config.code_predictor_config.vocab_size missing"},
		{"missing talker_config", func(top, _, _ map[string]any) { delete(top, "talker_config") }, "", "talker_config missing"},
		{"missing tts_pad", func(top, _, _ map[string]any) { delete(top, "tts_pad_token_id") }, "", "tts_pad_token_id missing"},
		{"missing head_dim", func(_, _, cp map[string]any) { delete(cp, "head_dim") }, "", "code_predictor_config.head_dim missing"},
		{"missing rope_theta", func(_, tk, _ map[string]any) { delete(tk, "rope_theta") }, "", "talker_config.rope_theta missing"},
		{"string layers", func(_, tk, _ map[string]any) { tk["num_hidden_layers"] = "28" }, "", `talker_config.num_hidden_layers is "28", want an integer`},
		{"fractional heads", func(_, tk, _ map[string]any) { tk["num_attention_heads"] = 16.5 }, "", "num_attention_heads is 16.5, want an integer"},
		{"vocab 2^40", func(_, tk, _ map[string]any) { tk["vocab_size"] = 1 << 40 }, "", "talker_config.vocab_size is 1099511627776, want an integer in [-2147483648, 2147483647]"},
		{"vocab beyond int64", func(_, _, cp map[string]any) { cp["vocab_size"] = json.Number("99999999999999999999") }, "", "vocab_size is 99999999999999999999, want an integer in"},
		{"string eps", func(_, tk, _ map[string]any) { tk["rms_norm_eps"] = "1e-6" }, "", "rms_norm_eps is \"1e-6\", want a number"},
		{"talker_config array", func(top, _, _ map[string]any) { top["talker_config"] = []any{1} }, "", "talker_config is [1], want an object"},
		{"spk_id string", func(_, tk, _ map[string]any) { tk["spk_id"] = map[string]any{"x": "3065"} }, "", `spk_id.x is "3065"`},
		{"eos outside vocab", func(_, tk, _ map[string]any) { tk["codec_eos_token_id"] = 3072 }, "", "codec_eos_token_id 3072 outside the special range [2048, 3072)"},
		{"tts_pad outside text vocab", func(top, _, _ map[string]any) { top["tts_pad_token_id"] = 151936 }, "", "tts_pad_token_id 151936 outside the text vocabulary"},
		{"heads not multiple", func(_, tk, _ map[string]any) { tk["num_key_value_heads"] = 3 }, "", "num_attention_heads 16 not a multiple of num_key_value_heads 3"},
		{"zero layers", func(_, _, cp map[string]any) { cp["num_hidden_layers"] = 0 }, "", "code_predictor_config: num_hidden_layers 0 not positive"},
		{"group mismatch", func(_, _, cp map[string]any) { cp["num_code_groups"] = 32 }, "", "num_code_groups 32 differs"},
		{"language outside vocab", func(_, tk, _ map[string]any) { tk["codec_language_id"] = map[string]any{"english": 4000} }, "", "codec_language_id.english 4000 outside"},
		{"gen top_p", nil, `{"top_p": 1.5}`, "generation_config.json: top_p 1.5 outside (0, 1]"},
		{"gen top_k type", nil, `{"top_k": "50"}`, `generation_config.json: top_k is "50", want an integer`},
		{"gen do_sample type", nil, `{"do_sample": 1}`, "do_sample is 1, want a boolean"},
		{"gen not object", nil, `[1]`, "generation_config.json"},
		{"gen max_new_tokens", nil, `{"max_new_tokens": 0}`, "max_new_tokens 0 not positive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := []byte(config06B)
			if c.edit != nil {
				cfg = editConfig(t, c.edit)
			}
			var gen []byte
			if c.gen != "" {
				gen = []byte(c.gen)
			}
			_, err := ParseConfig(cfg, gen)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ParseConfig err = %v, want ErrConfig containing %q", err, c.want)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{"talker_config": `), nil); !errors.Is(err, ErrConfig) {
		t.Errorf("truncated JSON err = %v, want ErrConfig", err)
	}
}
