package predictor

import "github.com/omni-tts/omni/speaker"

// ParseConfig parses a checkpoint's config.json and generation_config.json
// (generationJSON may be nil: the reference's fallbacks apply, as they do for
// each key the file lacks) and validates the result. Errors name the file and
// the dotted key: "predictor: bad config: config.json: talker_config.hidden_size missing".
func ParseConfig(configJSON, generationJSON []byte) (*Config, error) {
	const file = "config.json"
	top, err := parseObject(file, "", configJSON)
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if c.ModelType, err = top.stringOr("model_type", ""); err != nil {
		return nil, err
	}
	if c.ModelSize, err = top.stringOr("tts_model_size", ""); err != nil {
		return nil, err
	}
	if c.ModelKind, err = top.stringOr("tts_model_type", ""); err != nil {
		return nil, err
	}
	if err := intFields(top, map[string]*int{
		"tts_pad_token_id": &c.TTSPad, "tts_bos_token_id": &c.TTSBos, "tts_eos_token_id": &c.TTSEos,
		"im_start_token_id": &c.ImStart, "im_end_token_id": &c.ImEnd, "assistant_token_id": &c.Assistant,
	}); err != nil {
		return nil, err
	}
	tk, err := top.object("talker_config")
	if err != nil {
		return nil, err
	}
	if c.Talker, err = parseDecoder(tk); err != nil {
		return nil, err
	}
	if err := intFields(tk, map[string]*int{
		"vocab_size": &c.TalkerVocab, "num_code_groups": &c.CodeGroups,
		"text_vocab_size": &c.TextVocab, "text_hidden_size": &c.TextHidden,
		"codec_pad_id": &c.CodecPad, "codec_bos_id": &c.CodecBos, "codec_eos_token_id": &c.CodecEos,
		"codec_think_id": &c.CodecThink, "codec_nothink_id": &c.CodecNothink,
		"codec_think_bos_id": &c.CodecThinkBos, "codec_think_eos_id": &c.CodecThinkEos,
	}); err != nil {
		return nil, err
	}
	if c.LanguageIDs, err = tk.idMap("codec_language_id"); err != nil {
		return nil, err
	}
	if c.SpeakerIDs, err = tk.idMap("spk_id"); err != nil {
		return nil, err
	}
	if c.SpeakerDialects, err = tk.dialectMap("spk_is_dialect"); err != nil {
		return nil, err
	}
	cp, err := tk.object("code_predictor_config")
	if err != nil {
		return nil, err
	}
	if c.Predictor, err = parseDecoder(cp); err != nil {
		return nil, err
	}
	if c.PredictorVocab, err = cp.int("vocab_size"); err != nil {
		return nil, err
	}
	groups, err := cp.intOr("num_code_groups", c.CodeGroups)
	if err != nil {
		return nil, err
	}
	if groups != c.CodeGroups {
		return nil, errorf(ErrConfig, "%s: talker_config.code_predictor_config.num_code_groups %d differs from talker_config.num_code_groups %d", file, groups, c.CodeGroups)
	}
	// only a Base model's speaker encoder is used; a serialised default in
	// another kind's config.json is ignored rather than checked
	if top.has("speaker_encoder_config") && (c.ModelKind == "base" || c.ModelKind == "") {
		sc, err := speaker.ParseCheckpointConfig(configJSON)
		if err != nil {
			return nil, errorf(ErrConfig, "%s: %v", file, err)
		}
		c.SpeakerEncoder = &sc
	}
	if c.Generation, err = parseGeneration(generationJSON); err != nil {
		return nil, err
	}
	if err := c.validateModel(); err != nil {
		return nil, errorf(ErrConfig, "%s: %v", file, err)
	}
	if err := c.Validate(); err != nil { // the generation values
		return nil, err
	}
	return c, nil
}

// parseDecoder reads the decoder geometry keys of one sub-config. rope_theta
// may sit at the top of the sub-config or (newer transformers) inside
// rope_parameters / rope_scaling.
func parseDecoder(o *jsonObject) (DecoderConfig, error) {
	var d DecoderConfig
	if err := intFields(o, map[string]*int{
		"num_hidden_layers": &d.Layers, "hidden_size": &d.Hidden, "intermediate_size": &d.Intermediate,
		"num_attention_heads": &d.Heads, "num_key_value_heads": &d.KVHeads, "head_dim": &d.HeadDim,
		"max_position_embeddings": &d.MaxPositions,
	}); err != nil {
		return d, err
	}
	var err error
	if d.RMSEps, err = o.float("rms_norm_eps"); err != nil {
		return d, err
	}
	if o.has("rope_theta") {
		d.RopeTheta, err = o.float("rope_theta")
		return d, err
	}
	for _, k := range []string{"rope_parameters", "rope_scaling"} {
		if !o.has(k) {
			continue
		}
		sub, err := o.object(k)
		if err != nil {
			return d, err
		}
		if sub.has("rope_theta") {
			d.RopeTheta, err = sub.float("rope_theta")
			return d, err
		}
	}
	return d, o.missing("rope_theta")
}

// parseGeneration reads generation_config.json over the reference fallbacks.
func parseGeneration(b []byte) (GenerationConfig, error) {
	g := DefaultGeneration()
	if b == nil {
		return g, nil
	}
	o, err := parseObject("generation_config.json", "", b)
	if err != nil {
		return g, err
	}
	for _, f := range []struct {
		key string
		p   *bool
	}{{"do_sample", &g.DoSample}, {"subtalker_dosample", &g.SubtalkerDoSample}} {
		if *f.p, err = o.boolOr(f.key, *f.p); err != nil {
			return g, err
		}
	}
	for _, f := range []struct {
		key string
		p   *float64
	}{
		{"temperature", &g.Temperature}, {"top_p", &g.TopP}, {"repetition_penalty", &g.RepetitionPenalty},
		{"subtalker_temperature", &g.SubtalkerTemperature}, {"subtalker_top_p", &g.SubtalkerTopP},
	} {
		if *f.p, err = o.floatOr(f.key, *f.p); err != nil {
			return g, err
		}
	}
	for _, f := range []struct {
		key string
		p   *int
	}{
		{"top_k", &g.TopK}, {"max_new_tokens", &g.MaxNewTokens}, {"min_new_tokens", &g.MinNewTokens},
		{"subtalker_top_k", &g.SubtalkerTopK},
	} {
		if *f.p, err = o.intOr(f.key, *f.p); err != nil {
			return g, err
		}
	}
	return g, nil
}

// intFields reads required integer keys in sorted key order (so the first
// missing one reported is deterministic).
func intFields(o *jsonObject, fields map[string]*int) error {
	for _, k := range sortedKeys(fields) {
		v, err := o.int(k)
		if err != nil {
			return err
		}
		*fields[k] = v
	}
	return nil
}
