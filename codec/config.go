package codec

import (
	"encoding/json"
	"fmt"
	"math"
)

// Codebooks is the number of codes per frame the decoder takes (codebook 0,
// the semantic one, then 15 acoustic ones).
const Codebooks = 16

// Config is the decoder geometry, as the decoder_config section of
// speech_tokenizer/config.json states it (JSON names in the field comments).
type Config struct {
	CodebookSize     int     // codebook_size: entries per codebook (2048)
	CodebookDim      int     // codebook_dim: RVQ output width (512); tables are CodebookDim/2 wide
	LatentDim        int     // latent_dim: pre_conv / transformer outer / upsample width (1024)
	DecoderDim       int     // decoder_dim: vocoder input width (1536), halved by every block
	Hidden           int     // hidden_size: transformer width (512)
	Intermediate     int     // intermediate_size: SwiGLU width (1024)
	Layers           int     // num_hidden_layers (8)
	Heads            int     // num_attention_heads (16); num_key_value_heads must equal it
	HeadDim          int     // head_dim (64)
	RMSEps           float32 // rms_norm_eps (1e-5)
	RopeTheta        float32 // rope_theta (10000)
	SlidingWindow    int     // sliding_window: keys a query sees, itself included (72)
	UpsamplingRatios []int   // upsampling_ratios: transposed conv + ConvNeXt stages ([2, 2])
	UpsampleRates    []int   // upsample_rates: vocoder block strides ([8, 5, 4, 3])
	SampleRate       int     // output_sample_rate (top level; 24000)
}

// RealConfig returns the geometry of the released Qwen3-TTS-Tokenizer-12Hz
// decoder.
func RealConfig() Config {
	return Config{
		CodebookSize: 2048, CodebookDim: 512, LatentDim: 1024, DecoderDim: 1536,
		Hidden: 512, Intermediate: 1024, Layers: 8, Heads: 16, HeadDim: 64,
		RMSEps: 1e-5, RopeTheta: 10000, SlidingWindow: 72,
		UpsamplingRatios: []int{2, 2}, UpsampleRates: []int{8, 5, 4, 3}, SampleRate: 24000,
	}
}

// TinyConfig returns a small geometry with the real structure (16
// codebooks, two upsampling stages, four vocoder blocks with residual units
// of dilation 1, 3, 9) for tests: head_dim differs from hidden/heads, the
// window is 5 so a few frames cross it, one block has stride 1 (a one-row
// transposed-conv carry), and every matrix and convolution input is a
// multiple of 32 wide so the int8 matrix kernels' blocks take it too; 48
// samples per frame.
func TinyConfig() Config {
	return Config{
		CodebookSize: 24, CodebookDim: 64, LatentDim: 64, DecoderDim: 512,
		Hidden: 32, Intermediate: 64, Layers: 2, Heads: 2, HeadDim: 32,
		RMSEps: 1e-5, RopeTheta: 10000, SlidingWindow: 5,
		UpsamplingRatios: []int{2, 2}, UpsampleRates: []int{2, 3, 2, 1}, SampleRate: 24000,
	}
}

// SamplesPerFrame returns the output samples per frame of codes: the product
// of the upsampling ratios and the upsample rates (1920 for the real codec).
func (c *Config) SamplesPerFrame() int {
	n := 1
	for _, r := range c.UpsamplingRatios {
		n *= r
	}
	for _, r := range c.UpsampleRates {
		n *= r
	}
	return n
}

// blockDims returns the input and output widths of vocoder block i.
func (c *Config) blockDims(i int) (in, out int) {
	return c.DecoderDim >> i, c.DecoderDim >> (i + 1)
}

// outDim returns the width after the last vocoder block.
func (c *Config) outDim() int { return c.DecoderDim >> len(c.UpsampleRates) }

// maxLayers bounds num_hidden_layers (8 in the released codec): the tensor
// list is built by looping over the layers.
const maxLayers = 1024

// Validate checks that c describes a decoder this package can run.
func (c *Config) Validate() error {
	pos := []struct {
		name string
		v    int
	}{
		{"codebook_size", c.CodebookSize}, {"codebook_dim", c.CodebookDim}, {"latent_dim", c.LatentDim},
		{"decoder_dim", c.DecoderDim}, {"hidden_size", c.Hidden}, {"intermediate_size", c.Intermediate},
		{"num_hidden_layers", c.Layers}, {"num_attention_heads", c.Heads}, {"head_dim", c.HeadDim},
		{"sliding_window", c.SlidingWindow}, {"output_sample_rate", c.SampleRate},
	}
	for _, p := range pos {
		if p.v <= 0 || p.v > 1<<20 {
			return errorf(ErrConfig, "%s %d outside [1, %d]", p.name, p.v, 1<<20)
		}
	}
	if c.Layers > maxLayers {
		return errorf(ErrConfig, "num_hidden_layers %d above %d", c.Layers, maxLayers)
	}
	if c.CodebookDim%2 != 0 {
		return errorf(ErrConfig, "codebook_dim %d is odd (the tables are codebook_dim/2 wide)", c.CodebookDim)
	}
	if c.HeadDim%2 != 0 {
		return errorf(ErrConfig, "head_dim %d is odd (rotate-half RoPE needs an even width)", c.HeadDim)
	}
	if !(c.RMSEps > 0) || c.RMSEps > 1 {
		return errorf(ErrConfig, "rms_norm_eps %g outside (0, 1]", c.RMSEps)
	}
	if !(c.RopeTheta > 1) || math.IsInf(float64(c.RopeTheta), 0) {
		return errorf(ErrConfig, "rope_theta %g must be a finite value above 1", c.RopeTheta)
	}
	if len(c.UpsamplingRatios) == 0 || len(c.UpsamplingRatios) > 8 {
		return errorf(ErrConfig, "upsampling_ratios %v: want 1 to 8 stages", c.UpsamplingRatios)
	}
	if len(c.UpsampleRates) == 0 || len(c.UpsampleRates) > 8 {
		return errorf(ErrConfig, "upsample_rates %v: want 1 to 8 blocks", c.UpsampleRates)
	}
	spf := 1 // SamplesPerFrame, checked as it grows: 16 factors of 64 overflow an int
	for _, r := range append(append([]int(nil), c.UpsamplingRatios...), c.UpsampleRates...) {
		if r < 1 || r > 64 {
			return errorf(ErrConfig, "upsampling ratio or rate %d outside [1, 64]", r)
		}
		if spf *= r; spf > 1<<16 {
			return errorf(ErrConfig, "upsampling_ratios %v and upsample_rates %v give more than %d samples per frame", c.UpsamplingRatios, c.UpsampleRates, 1<<16)
		}
	}
	if c.outDim() < 1 || c.outDim()<<len(c.UpsampleRates) != c.DecoderDim {
		return errorf(ErrConfig, "decoder_dim %d does not halve %d times", c.DecoderDim, len(c.UpsampleRates))
	}
	return nil
}

// ParseConfig reads a speech_tokenizer config.json: the decoder_config
// section plus output_sample_rate and decode_upsample_rate at the top level
// (when present, decode_upsample_rate must equal the product of the
// upsampling ratios and rates). num_quantizers must be 16,
// num_key_value_heads must equal num_attention_heads, attention_bias must be
// false and hidden_act silu.
func ParseConfig(b []byte) (Config, error) {
	var top struct {
		Decoder        *json.RawMessage `json:"decoder_config"`
		OutputRate     *int             `json:"output_sample_rate"`
		DecodeUpsample *int             `json:"decode_upsample_rate"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return Config{}, errorf(ErrConfig, "config.json: %v", err)
	}
	if top.Decoder == nil {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config missing")
	}
	var d struct {
		CodebookSize     *int     `json:"codebook_size"`
		CodebookDim      *int     `json:"codebook_dim"`
		LatentDim        *int     `json:"latent_dim"`
		DecoderDim       *int     `json:"decoder_dim"`
		Hidden           *int     `json:"hidden_size"`
		Intermediate     *int     `json:"intermediate_size"`
		Layers           *int     `json:"num_hidden_layers"`
		Heads            *int     `json:"num_attention_heads"`
		KVHeads          *int     `json:"num_key_value_heads"`
		HeadDim          *int     `json:"head_dim"`
		RMSEps           *float64 `json:"rms_norm_eps"`
		RopeTheta        *float64 `json:"rope_theta"`
		SlidingWindow    *int     `json:"sliding_window"`
		UpsamplingRatios []int    `json:"upsampling_ratios"`
		UpsampleRates    []int    `json:"upsample_rates"`
		NumQuantizers    *int     `json:"num_quantizers"`
		AttentionBias    *bool    `json:"attention_bias"`
		HiddenAct        *string  `json:"hidden_act"`
	}
	if err := json.Unmarshal(*top.Decoder, &d); err != nil {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config: %v", err)
	}
	ints := []struct {
		name string
		p    *int
	}{
		{"codebook_size", d.CodebookSize}, {"codebook_dim", d.CodebookDim}, {"latent_dim", d.LatentDim},
		{"decoder_dim", d.DecoderDim}, {"hidden_size", d.Hidden}, {"intermediate_size", d.Intermediate},
		{"num_hidden_layers", d.Layers}, {"num_attention_heads", d.Heads}, {"sliding_window", d.SlidingWindow},
		{"num_quantizers", d.NumQuantizers},
	}
	for _, f := range ints {
		if f.p == nil {
			return Config{}, errorf(ErrConfig, "config.json: decoder_config.%s missing", f.name)
		}
	}
	if d.UpsamplingRatios == nil || d.UpsampleRates == nil {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config.upsampling_ratios and upsample_rates are required")
	}
	if *d.NumQuantizers != Codebooks {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config.num_quantizers %d, this decoder takes %d codebooks", *d.NumQuantizers, Codebooks)
	}
	if d.KVHeads != nil && *d.KVHeads != *d.Heads {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config.num_key_value_heads %d differs from num_attention_heads %d", *d.KVHeads, *d.Heads)
	}
	if d.AttentionBias != nil && *d.AttentionBias {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config.attention_bias true is not supported")
	}
	if d.HiddenAct != nil && *d.HiddenAct != "silu" {
		return Config{}, errorf(ErrConfig, "config.json: decoder_config.hidden_act %q, want \"silu\"", *d.HiddenAct)
	}
	c := Config{
		CodebookSize: *d.CodebookSize, CodebookDim: *d.CodebookDim, LatentDim: *d.LatentDim,
		DecoderDim: *d.DecoderDim, Hidden: *d.Hidden, Intermediate: *d.Intermediate, Layers: *d.Layers,
		Heads: *d.Heads, RMSEps: 1e-6, RopeTheta: 10000, SlidingWindow: *d.SlidingWindow,
		UpsamplingRatios: d.UpsamplingRatios, UpsampleRates: d.UpsampleRates, SampleRate: 24000,
	}
	if *d.Heads > 0 {
		c.HeadDim = *d.Hidden / *d.Heads
	}
	if d.HeadDim != nil {
		c.HeadDim = *d.HeadDim
	}
	// the float32 fields are checked as the file writes them: 1e-50 or
	// 1e39 would round to 0 or +Inf
	if d.RMSEps != nil {
		if v := *d.RMSEps; !(v > 0 && v <= 1) || float32(v) == 0 {
			return Config{}, errorf(ErrConfig, "config.json: decoder_config.rms_norm_eps %g outside (0, 1] or below float32's range", v)
		}
		c.RMSEps = float32(*d.RMSEps)
	}
	if d.RopeTheta != nil {
		if v := *d.RopeTheta; !(v > 1) || !(float32(v) > 1) || math.IsInf(float64(float32(v)), 0) {
			return Config{}, errorf(ErrConfig, "config.json: decoder_config.rope_theta %g must be above 1 and within float32's range", v)
		}
		c.RopeTheta = float32(*d.RopeTheta)
	}
	if top.OutputRate != nil {
		c.SampleRate = *top.OutputRate
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config.json: %w", err)
	}
	if top.DecodeUpsample != nil && *top.DecodeUpsample != c.SamplesPerFrame() {
		return Config{}, errorf(ErrConfig, "config.json: decode_upsample_rate %d, the ratios and rates give %d", *top.DecodeUpsample, c.SamplesPerFrame())
	}
	return c, nil
}

// JSON returns c as a speech_tokenizer config.json (the fields ParseConfig
// reads plus the constant ones of the released file).
func (c *Config) JSON() ([]byte, error) {
	dec := map[string]any{
		"attention_bias": false, "attention_dropout": 0.0, "codebook_dim": c.CodebookDim,
		"codebook_size": c.CodebookSize, "decoder_dim": c.DecoderDim, "head_dim": c.HeadDim,
		"hidden_act": "silu", "hidden_size": c.Hidden, "intermediate_size": c.Intermediate,
		"latent_dim": c.LatentDim, "layer_scale_initial_scale": 0.01, "max_position_embeddings": 8000,
		"num_attention_heads": c.Heads, "num_hidden_layers": c.Layers, "num_key_value_heads": c.Heads,
		"num_quantizers": Codebooks, "num_semantic_quantizers": 1, "rms_norm_eps": c.RMSEps,
		"rope_theta": c.RopeTheta, "sliding_window": c.SlidingWindow,
		"upsample_rates": c.UpsampleRates, "upsampling_ratios": c.UpsamplingRatios,
	}
	top := map[string]any{
		"architectures": []string{"Qwen3TTSTokenizerV2Model"}, "model_type": "qwen3_tts_tokenizer_12hz",
		"input_sample_rate": c.SampleRate, "output_sample_rate": c.SampleRate,
		"decode_upsample_rate": c.SamplesPerFrame(), "encode_downsample_rate": c.SamplesPerFrame(),
		"encoder_valid_num_quantizers": Codebooks, "decoder_config": dec,
	}
	return json.MarshalIndent(top, "", "  ")
}
