package predictor

import (
	"encoding/json"
	"reflect"

	"github.com/omni-tts/omni/speaker"
)

// EncodeConfig renders c as a checkpoint's config.json and
// generation_config.json, with the key names of the Hugging Face Qwen3-TTS
// checkpoints (docs/MODEL.md §1), so ParseConfig reads back the same
// Config.
func EncodeConfig(c *Config) (configJSON, generationJSON []byte, err error) {
	dec := func(d DecoderConfig) map[string]any {
		return map[string]any{
			"num_hidden_layers": d.Layers, "hidden_size": d.Hidden, "intermediate_size": d.Intermediate,
			"num_attention_heads": d.Heads, "num_key_value_heads": d.KVHeads, "head_dim": d.HeadDim,
			"rms_norm_eps": d.RMSEps, "rope_theta": d.RopeTheta, "max_position_embeddings": d.MaxPositions,
			"hidden_act": "silu", "attention_bias": false,
		}
	}
	cp := dec(c.Predictor)
	cp["vocab_size"] = c.PredictorVocab
	cp["num_code_groups"] = c.CodeGroups
	cp["rope_scaling"] = nil
	layerTypes := make([]string, c.Predictor.Layers)
	for i := range layerTypes {
		layerTypes[i] = "full_attention"
	}
	cp["layer_types"] = layerTypes
	tk := dec(c.Talker)
	dialects := map[string]any{}
	for name := range c.SpeakerIDs {
		dialects[name] = false
	}
	for name, d := range c.SpeakerDialects {
		dialects[name] = d
	}
	for k, v := range map[string]any{
		"vocab_size": c.TalkerVocab, "num_code_groups": c.CodeGroups,
		"text_vocab_size": c.TextVocab, "text_hidden_size": c.TextHidden,
		"codec_pad_id": c.CodecPad, "codec_bos_id": c.CodecBos, "codec_eos_token_id": c.CodecEos,
		"codec_think_id": c.CodecThink, "codec_nothink_id": c.CodecNothink,
		"codec_think_bos_id": c.CodecThinkBos, "codec_think_eos_id": c.CodecThinkEos,
		"codec_language_id": c.LanguageIDs, "spk_id": c.SpeakerIDs, "spk_is_dialect": dialects,
		"rope_scaling": map[string]any{
			"interleaved": true, "mrope_section": []int{24, 20, 20}, "rope_type": "default",
		},
		"position_id_per_seconds": 13,
		"code_predictor_config":   cp,
	} {
		tk[k] = v
	}
	top := map[string]any{
		"architectures": []string{"Qwen3TTSForConditionalGeneration"},
		"model_type":    c.ModelType, "tokenizer_type": "qwen3_tts_tokenizer_12hz",
		"tts_model_size": c.ModelSize, "tts_model_type": c.ModelKind,
		"im_start_token_id": c.ImStart, "im_end_token_id": c.ImEnd, "assistant_token_id": c.Assistant,
		"tts_pad_token_id": c.TTSPad, "tts_bos_token_id": c.TTSBos, "tts_eos_token_id": c.TTSEos,
		"talker_config": tk,
	}
	if e := c.SpeakerEncoder; e != nil {
		if reflect.DeepEqual(*e, speaker.DefaultConfig(e.EncDim)) {
			// as the released Base checkpoints write it: the rest are the class defaults
			top["speaker_encoder_config"] = map[string]any{"enc_dim": e.EncDim, "sample_rate": e.SampleRate}
		} else {
			top["speaker_encoder_config"] = e
		}
	}
	if configJSON, err = json.MarshalIndent(top, "", "  "); err != nil {
		return nil, nil, err
	}
	g := c.Generation
	gen := map[string]any{
		"do_sample": g.DoSample, "temperature": g.Temperature, "top_k": g.TopK, "top_p": g.TopP,
		"repetition_penalty": g.RepetitionPenalty, "max_new_tokens": g.MaxNewTokens,
		"subtalker_dosample": g.SubtalkerDoSample, "subtalker_temperature": g.SubtalkerTemperature,
		"subtalker_top_k": g.SubtalkerTopK, "subtalker_top_p": g.SubtalkerTopP,
	}
	if g.MinNewTokens != DefaultGeneration().MinNewTokens {
		gen["min_new_tokens"] = g.MinNewTokens
	}
	if generationJSON, err = json.MarshalIndent(gen, "", "  "); err != nil {
		return nil, nil, err
	}
	return append(configJSON, '\n'), append(generationJSON, '\n'), nil
}
