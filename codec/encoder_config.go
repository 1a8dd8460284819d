package codec

import (
	"encoding/json"
	"fmt"
	"math"
)

// EncoderConfig is the codec encoder's geometry, as the encoder_config
// section of speech_tokenizer/config.json states it (a Mimi configuration;
// JSON names in the field comments). The encoder is the mirror of the
// decoder: 24 kHz samples → a SEANet conv stack (strides the reverse of
// upsampling_ratios) → a windowed transformer → a ×2 downsample → a split
// RVQ whose first Codebooks codes per frame are kept.
type EncoderConfig struct {
	NumFilters         int     // num_filters: width of the first conv (64), doubled by every stride
	KernelSize         int     // kernel_size: the first conv's kernel (7)
	LastKernelSize     int     // last_kernel_size: the last conv's kernel (3)
	ResidualKernelSize int     // residual_kernel_size: the residual units' first kernel (3)
	ResidualLayers     int     // num_residual_layers: residual units per stride (1)
	DilationGrowth     int     // dilation_growth_rate: unit j has dilation growth^j (2)
	Compress           int     // compress: a residual unit's inner width is dim/compress (2)
	Ratios             []int   // upsampling_ratios: applied reversed as conv strides ([8, 6, 5, 4])
	Hidden             int     // hidden_size: transformer width and SEANet output (512)
	Intermediate       int     // intermediate_size: GELU MLP width (2048)
	Layers             int     // num_hidden_layers (8)
	Heads              int     // num_attention_heads (8); num_key_value_heads must equal it
	HeadDim            int     // head_dim (64)
	NormEps            float32 // norm_eps: LayerNorm epsilon (1e-5)
	RopeTheta          float32 // rope_theta (10000)
	SlidingWindow      int     // sliding_window: keys a query sees, itself included (250)
	CodebookSize       int     // codebook_size: entries per codebook (2048)
	CodebookDim        int     // codebook_dim: codeword width, = vector_quantization_hidden_dimension (256)
	Quantizers         int     // num_quantizers: codebooks in the file (32), of which Codebooks are used
	SampleRate         int     // sampling_rate (24000)
}

// RealEncoderConfig returns the geometry of the released
// Qwen3-TTS-Tokenizer-12Hz encoder.
func RealEncoderConfig() EncoderConfig {
	return EncoderConfig{
		NumFilters: 64, KernelSize: 7, LastKernelSize: 3, ResidualKernelSize: 3, ResidualLayers: 1,
		DilationGrowth: 2, Compress: 2, Ratios: []int{8, 6, 5, 4}, Hidden: 512, Intermediate: 2048,
		Layers: 8, Heads: 8, HeadDim: 64, NormEps: 1e-5, RopeTheta: 10000, SlidingWindow: 250,
		CodebookSize: 2048, CodebookDim: 256, Quantizers: 32, SampleRate: 24000,
	}
}

// TinyEncoderConfig returns a small geometry with the real structure for
// tests: two strides (3 then 2), two residual units per stride (dilations
// 1 and 2), a window of 4 encoder frames, 16 codebooks of 24 entries; 12
// samples per frame.
func TinyEncoderConfig() EncoderConfig {
	return EncoderConfig{
		NumFilters: 4, KernelSize: 5, LastKernelSize: 3, ResidualKernelSize: 3, ResidualLayers: 2,
		DilationGrowth: 2, Compress: 2, Ratios: []int{2, 3}, Hidden: 16, Intermediate: 24,
		Layers: 2, Heads: 2, HeadDim: 6, NormEps: 1e-5, RopeTheta: 10000, SlidingWindow: 4,
		CodebookSize: 24, CodebookDim: 8, Quantizers: 18, SampleRate: 24000,
	}
}

// EncodeDownsample is the stride of the encoder's last conv (the
// "downsample" from the SEANet frame rate to the code frame rate).
const EncodeDownsample = 2

// SamplesPerFrame returns the input samples per frame of codes: the product
// of the ratios times EncodeDownsample (1920 for the real codec).
func (c *EncoderConfig) SamplesPerFrame() int {
	return c.seanetStride() * EncodeDownsample
}

// seanetStride returns the product of the ratios.
func (c *EncoderConfig) seanetStride() int {
	n := 1
	for _, r := range c.Ratios {
		n *= r
	}
	return n
}

// Frames returns the frames of codes n samples give: ceil(n / SamplesPerFrame).
func (c *EncoderConfig) Frames(n int) int {
	s := c.SamplesPerFrame()
	return (n + s - 1) / s
}

// Validate checks that c describes an encoder this package can run.
func (c *EncoderConfig) Validate() error {
	pos := []struct {
		name string
		v    int
	}{
		{"num_filters", c.NumFilters}, {"kernel_size", c.KernelSize}, {"last_kernel_size", c.LastKernelSize},
		{"residual_kernel_size", c.ResidualKernelSize}, {"num_residual_layers", c.ResidualLayers},
		{"dilation_growth_rate", c.DilationGrowth}, {"compress", c.Compress}, {"hidden_size", c.Hidden},
		{"intermediate_size", c.Intermediate}, {"num_hidden_layers", c.Layers}, {"num_attention_heads", c.Heads},
		{"head_dim", c.HeadDim}, {"sliding_window", c.SlidingWindow}, {"codebook_size", c.CodebookSize},
		{"codebook_dim", c.CodebookDim}, {"num_quantizers", c.Quantizers}, {"sampling_rate", c.SampleRate},
	}
	for _, p := range pos {
		if p.v <= 0 || p.v > 1<<20 {
			return errorf(ErrConfig, "encoder_config.%s %d outside [1, %d]", p.name, p.v, 1<<20)
		}
	}
	if c.KernelSize > 64 || c.LastKernelSize > 64 || c.ResidualKernelSize > 64 || c.ResidualLayers > 8 || c.DilationGrowth > 16 {
		return errorf(ErrConfig, "encoder_config kernels %d, %d, %d, %d residual layers, dilation growth %d: too large",
			c.KernelSize, c.LastKernelSize, c.ResidualKernelSize, c.ResidualLayers, c.DilationGrowth)
	}
	if c.HeadDim%2 != 0 {
		return errorf(ErrConfig, "encoder_config.head_dim %d is odd (rotate-half RoPE needs an even width)", c.HeadDim)
	}
	if c.NumFilters%c.Compress != 0 {
		return errorf(ErrConfig, "encoder_config.compress %d does not divide num_filters %d", c.Compress, c.NumFilters)
	}
	if !(c.NormEps > 0) || c.NormEps > 1 {
		return errorf(ErrConfig, "encoder_config.norm_eps %g outside (0, 1]", c.NormEps)
	}
	if !(c.RopeTheta > 1) || math.IsInf(float64(c.RopeTheta), 0) {
		return errorf(ErrConfig, "encoder_config.rope_theta %g must be a finite value above 1", c.RopeTheta)
	}
	if len(c.Ratios) == 0 || len(c.Ratios) > 8 {
		return errorf(ErrConfig, "encoder_config.upsampling_ratios %v: want 1 to 8 strides", c.Ratios)
	}
	for _, r := range c.Ratios {
		if r < 1 || r > 64 {
			return errorf(ErrConfig, "encoder_config.upsampling_ratios %v: ratio %d outside [1, 64]", c.Ratios, r)
		}
	}
	if c.NumFilters<<len(c.Ratios) > 1<<16 {
		return errorf(ErrConfig, "encoder_config: num_filters %d doubled %d times is too wide", c.NumFilters, len(c.Ratios))
	}
	if c.SamplesPerFrame() > 1<<16 {
		return errorf(ErrConfig, "encoder_config: %d samples per frame is more than %d", c.SamplesPerFrame(), 1<<16)
	}
	if c.Quantizers < Codebooks {
		return errorf(ErrConfig, "encoder_config.num_quantizers %d, the codes need %d", c.Quantizers, Codebooks)
	}
	return nil
}

// ParseEncoderConfig reads the encoder_config section of a speech_tokenizer
// config.json (with encoder_valid_num_quantizers and
// encode_downsample_rate at the top level, each checked when present). The
// structure options must have the values the released encoder uses
// (audio_channels 1, use_causal_conv true, pad_mode "constant",
// use_conv_shortcut false, hidden_act "gelu", num_semantic_quantizers 1,
// num_key_value_heads = num_attention_heads, no attention bias,
// vector_quantization_hidden_dimension = codebook_dim ≠ hidden_size); a
// config that asks for another is refused by field.
func ParseEncoderConfig(b []byte) (EncoderConfig, error) {
	var top struct {
		Encoder      *json.RawMessage `json:"encoder_config"`
		Valid        *int             `json:"encoder_valid_num_quantizers"`
		EncodeStride *int             `json:"encode_downsample_rate"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: %v", err)
	}
	if top.Encoder == nil {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: encoder_config missing")
	}
	var d struct {
		AudioChannels  *int     `json:"audio_channels"`
		NumFilters     *int     `json:"num_filters"`
		KernelSize     *int     `json:"kernel_size"`
		LastKernelSize *int     `json:"last_kernel_size"`
		ResidualKernel *int     `json:"residual_kernel_size"`
		ResidualLayers *int     `json:"num_residual_layers"`
		DilationGrowth *int     `json:"dilation_growth_rate"`
		Compress       *int     `json:"compress"`
		Ratios         []int    `json:"upsampling_ratios"`
		Hidden         *int     `json:"hidden_size"`
		Intermediate   *int     `json:"intermediate_size"`
		Layers         *int     `json:"num_hidden_layers"`
		Heads          *int     `json:"num_attention_heads"`
		KVHeads        *int     `json:"num_key_value_heads"`
		HeadDim        *int     `json:"head_dim"`
		NormEps        *float64 `json:"norm_eps"`
		RopeTheta      *float64 `json:"rope_theta"`
		SlidingWindow  *int     `json:"sliding_window"`
		CodebookSize   *int     `json:"codebook_size"`
		CodebookDim    *int     `json:"codebook_dim"`
		VQHidden       *int     `json:"vector_quantization_hidden_dimension"`
		Quantizers     *int     `json:"num_quantizers"`
		Semantic       *int     `json:"num_semantic_quantizers"`
		SampleRate     *int     `json:"sampling_rate"`
		Causal         *bool    `json:"use_causal_conv"`
		PadMode        *string  `json:"pad_mode"`
		ConvShortcut   *bool    `json:"use_conv_shortcut"`
		HiddenAct      *string  `json:"hidden_act"`
		AttentionBias  *bool    `json:"attention_bias"`
		UseStreaming   *bool    `json:"use_streaming"`
	}
	if err := json.Unmarshal(*top.Encoder, &d); err != nil {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: encoder_config: %v", err)
	}
	ints := []struct {
		name string
		p    *int
	}{
		{"num_filters", d.NumFilters}, {"kernel_size", d.KernelSize}, {"last_kernel_size", d.LastKernelSize},
		{"residual_kernel_size", d.ResidualKernel}, {"num_residual_layers", d.ResidualLayers},
		{"dilation_growth_rate", d.DilationGrowth}, {"compress", d.Compress}, {"hidden_size", d.Hidden},
		{"intermediate_size", d.Intermediate}, {"num_hidden_layers", d.Layers}, {"num_attention_heads", d.Heads},
		{"sliding_window", d.SlidingWindow}, {"codebook_size", d.CodebookSize}, {"codebook_dim", d.CodebookDim},
		{"num_quantizers", d.Quantizers},
	}
	for _, f := range ints {
		if f.p == nil {
			return EncoderConfig{}, errorf(ErrConfig, "config.json: encoder_config.%s missing", f.name)
		}
	}
	if d.Ratios == nil {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: encoder_config.upsampling_ratios missing")
	}
	refuse := func(field string, got any, want string) error {
		return errorf(ErrConfig, "config.json: encoder_config.%s %v is not supported (want %s)", field, got, want)
	}
	switch {
	case d.AudioChannels != nil && *d.AudioChannels != 1:
		return EncoderConfig{}, refuse("audio_channels", *d.AudioChannels, "1")
	case d.Causal != nil && !*d.Causal:
		return EncoderConfig{}, refuse("use_causal_conv", false, "true")
	case d.PadMode != nil && *d.PadMode != "constant":
		return EncoderConfig{}, refuse("pad_mode", *d.PadMode, `"constant"`)
	case d.ConvShortcut != nil && *d.ConvShortcut:
		return EncoderConfig{}, refuse("use_conv_shortcut", true, "false")
	case d.HiddenAct != nil && *d.HiddenAct != "gelu":
		return EncoderConfig{}, refuse("hidden_act", *d.HiddenAct, `"gelu"`)
	case d.AttentionBias != nil && *d.AttentionBias:
		return EncoderConfig{}, refuse("attention_bias", true, "false")
	case d.UseStreaming != nil && *d.UseStreaming:
		return EncoderConfig{}, refuse("use_streaming", true, "false")
	case d.Semantic != nil && *d.Semantic != 1:
		return EncoderConfig{}, refuse("num_semantic_quantizers", *d.Semantic, "1")
	case d.KVHeads != nil && *d.KVHeads != *d.Heads:
		return EncoderConfig{}, refuse("num_key_value_heads", *d.KVHeads, "num_attention_heads")
	case d.VQHidden != nil && *d.VQHidden != *d.CodebookDim:
		return EncoderConfig{}, refuse("vector_quantization_hidden_dimension", *d.VQHidden, "codebook_dim")
	case *d.CodebookDim == *d.Hidden:
		return EncoderConfig{}, refuse("codebook_dim", *d.CodebookDim, "a width other than hidden_size (an RVQ with input_proj)")
	}
	c := EncoderConfig{
		NumFilters: *d.NumFilters, KernelSize: *d.KernelSize, LastKernelSize: *d.LastKernelSize,
		ResidualKernelSize: *d.ResidualKernel, ResidualLayers: *d.ResidualLayers, DilationGrowth: *d.DilationGrowth,
		Compress: *d.Compress, Ratios: d.Ratios, Hidden: *d.Hidden, Intermediate: *d.Intermediate,
		Layers: *d.Layers, Heads: *d.Heads, NormEps: 1e-5, RopeTheta: 10000, SlidingWindow: *d.SlidingWindow,
		CodebookSize: *d.CodebookSize, CodebookDim: *d.CodebookDim, Quantizers: *d.Quantizers, SampleRate: 24000,
	}
	if *d.Heads > 0 {
		c.HeadDim = *d.Hidden / *d.Heads
	}
	if d.HeadDim != nil {
		c.HeadDim = *d.HeadDim
	}
	if d.NormEps != nil {
		c.NormEps = float32(*d.NormEps)
	}
	if d.RopeTheta != nil {
		c.RopeTheta = float32(*d.RopeTheta)
	}
	if d.SampleRate != nil {
		c.SampleRate = *d.SampleRate
	}
	if err := c.Validate(); err != nil {
		return EncoderConfig{}, fmt.Errorf("config.json: %w", err)
	}
	if top.Valid != nil && *top.Valid != Codebooks {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: encoder_valid_num_quantizers %d, the talker takes %d codebooks", *top.Valid, Codebooks)
	}
	if top.EncodeStride != nil && *top.EncodeStride != c.SamplesPerFrame() {
		return EncoderConfig{}, errorf(ErrConfig, "config.json: encode_downsample_rate %d, the ratios and the ×%d downsample give %d",
			*top.EncodeStride, EncodeDownsample, c.SamplesPerFrame())
	}
	return c, nil
}

// JSONSection returns c as the encoder_config section of a speech_tokenizer
// config.json (the fields ParseEncoderConfig reads plus the constant ones
// of the released file).
func (c *EncoderConfig) JSONSection() map[string]any {
	return map[string]any{
		"audio_channels": 1, "num_filters": c.NumFilters, "kernel_size": c.KernelSize,
		"last_kernel_size": c.LastKernelSize, "residual_kernel_size": c.ResidualKernelSize,
		"num_residual_layers": c.ResidualLayers, "dilation_growth_rate": c.DilationGrowth,
		"compress": c.Compress, "upsampling_ratios": c.Ratios, "hidden_size": c.Hidden,
		"intermediate_size": c.Intermediate, "num_hidden_layers": c.Layers, "num_attention_heads": c.Heads,
		"num_key_value_heads": c.Heads, "head_dim": c.HeadDim, "norm_eps": c.NormEps, "rope_theta": c.RopeTheta,
		"sliding_window": c.SlidingWindow, "codebook_size": c.CodebookSize, "codebook_dim": c.CodebookDim,
		"vector_quantization_hidden_dimension": c.CodebookDim, "num_quantizers": c.Quantizers,
		"num_semantic_quantizers": 1, "sampling_rate": c.SampleRate, "use_causal_conv": true,
		"pad_mode": "constant", "use_conv_shortcut": false, "hidden_act": "gelu", "attention_bias": false,
		"use_streaming": false, "layer_scale_initial_scale": 0.01, "max_position_embeddings": 8000,
		"trim_right_ratio": 1.0,
	}
}
