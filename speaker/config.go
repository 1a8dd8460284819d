package speaker

import (
	"encoding/json"
	"fmt"
)

// Config is the speaker encoder's geometry: the speaker_encoder_config of
// a Base checkpoint's config.json. Real configs give only enc_dim and
// sample_rate; the other fields take the upstream class defaults
// (DefaultConfig), tiny configs spell them out.
type Config struct {
	MelDim            int   `json:"mel_dim"`                // 128 (the front end is fixed)
	EncDim            int   `json:"enc_dim"`                // embedding size (the talker's hidden)
	Channels          []int `json:"enc_channels"`           // TDNN, SE-Res2Net×(n−2), MFA out
	Kernels           []int `json:"enc_kernel_sizes"`       // per layer of Channels
	Dilations         []int `json:"enc_dilations"`          // per layer of Channels
	AttentionChannels int   `json:"enc_attention_channels"` // ASP bottleneck
	Res2NetScale      int   `json:"enc_res2net_scale"`      // splits of a Res2Net block
	SEChannels        int   `json:"enc_se_channels"`        // squeeze width
	SampleRate        int   `json:"sample_rate"`            // 24000
}

// DefaultConfig returns the upstream defaults with embedding size encDim
// (1024 for the 0.6B talker, 2048 for the 1.7B).
func DefaultConfig(encDim int) Config {
	return Config{
		MelDim: NumMels, EncDim: encDim,
		Channels: []int{512, 512, 512, 512, 1536}, Kernels: []int{5, 3, 3, 3, 1}, Dilations: []int{1, 2, 3, 4, 1},
		AttentionChannels: 128, Res2NetScale: 8, SEChannels: 128, SampleRate: SampleRate,
	}
}

// TinyConfig is a small geometry of the same shape for tests and the
// synthetic tiny model.
func TinyConfig() Config {
	return Config{
		MelDim: NumMels, EncDim: 24,
		Channels: []int{32, 32, 32, 32, 96}, Kernels: []int{5, 3, 3, 3, 1}, Dilations: []int{1, 2, 3, 4, 1},
		AttentionChannels: 16, Res2NetScale: 4, SEChannels: 8, SampleRate: SampleRate,
	}
}

// ParseCheckpointConfig reads the speaker_encoder_config of a checkpoint's
// config.json (the whole file), with the defaults for absent fields, and
// validates it. A checkpoint whose tts_model_type is given and is not
// "base" is refused: only Base models carry a speaker encoder.
func ParseCheckpointConfig(b []byte) (Config, error) {
	var top struct {
		Kind string          `json:"tts_model_type"`
		Spk  json.RawMessage `json:"speaker_encoder_config"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return Config{}, fmt.Errorf("speaker: config.json: %w", err)
	}
	if top.Kind != "" && top.Kind != "base" {
		return Config{}, fmt.Errorf("speaker: config.json: tts_model_type %q is not a Base model (no speaker encoder)", top.Kind)
	}
	if len(top.Spk) == 0 || string(top.Spk) == "null" {
		return Config{}, fmt.Errorf("speaker: config.json: no speaker_encoder_config (not a Base checkpoint)")
	}
	c := DefaultConfig(0)
	if err := json.Unmarshal(top.Spk, &c); err != nil {
		return Config{}, fmt.Errorf("speaker: config.json: speaker_encoder_config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("speaker: config.json: speaker_encoder_config: %w", err)
	}
	return c, nil
}

// maxDim bounds every size of a config.
const maxDim = 1 << 14

// Validate checks the config's fields, naming the first bad one.
func (c *Config) Validate() error {
	switch {
	case c.MelDim != NumMels:
		return fmt.Errorf("mel_dim %d: the front end makes %d mels", c.MelDim, NumMels)
	case c.SampleRate != SampleRate:
		return fmt.Errorf("sample_rate %d: the front end takes %d Hz", c.SampleRate, SampleRate)
	case c.EncDim < 1 || c.EncDim > maxDim:
		return fmt.Errorf("enc_dim %d outside [1, %d]", c.EncDim, maxDim)
	case len(c.Channels) < 3 || len(c.Channels) > 64:
		return fmt.Errorf("enc_channels has %d entries, want 3..64 (TDNN, SE-Res2Net blocks, MFA)", len(c.Channels))
	case len(c.Kernels) != len(c.Channels) || len(c.Dilations) != len(c.Channels):
		return fmt.Errorf("enc_kernel_sizes (%d) and enc_dilations (%d) must have the length of enc_channels (%d)", len(c.Kernels), len(c.Dilations), len(c.Channels))
	case c.Res2NetScale < 2 || c.Res2NetScale > 64:
		return fmt.Errorf("enc_res2net_scale %d outside [2, 64]", c.Res2NetScale)
	case c.AttentionChannels < 1 || c.AttentionChannels > maxDim:
		return fmt.Errorf("enc_attention_channels %d outside [1, %d]", c.AttentionChannels, maxDim)
	case c.SEChannels < 1 || c.SEChannels > maxDim:
		return fmt.Errorf("enc_se_channels %d outside [1, %d]", c.SEChannels, maxDim)
	}
	n := len(c.Channels)
	for i := range c.Channels {
		if c.Channels[i] < 1 || c.Channels[i] > maxDim {
			return fmt.Errorf("enc_channels[%d] = %d outside [1, %d]", i, c.Channels[i], maxDim)
		}
		if c.Kernels[i] < 1 || c.Kernels[i] > 64 || c.Dilations[i] < 1 || c.Dilations[i] > 64 {
			return fmt.Errorf("enc_kernel_sizes[%d] = %d / enc_dilations[%d] = %d outside [1, 64]", i, c.Kernels[i], i, c.Dilations[i])
		}
	}
	for i := 1; i < n-1; i++ {
		if c.Channels[i] != c.Channels[i-1] {
			// the residual adds the block's input to its output
			return fmt.Errorf("enc_channels[%d] = %d differs from enc_channels[%d] = %d (the SE-Res2Net residual needs equal widths)", i, c.Channels[i], i-1, c.Channels[i-1])
		}
		if c.Channels[i]%c.Res2NetScale != 0 {
			return fmt.Errorf("enc_channels[%d] = %d is not a multiple of enc_res2net_scale %d", i, c.Channels[i], c.Res2NetScale)
		}
	}
	return nil
}

// MinFrames returns the fewest mel frames the encoder accepts: every
// "same" reflect padding must be shorter than its input.
func (c *Config) MinFrames() int {
	m := 1
	for i := range c.Kernels {
		total := (c.Kernels[i] - 1) * c.Dilations[i]
		if r := total - total/2; r+1 > m {
			m = r + 1
		}
	}
	return m
}

// MinSamples returns the fewest 24 kHz samples the encoder accepts
// (1280 for the real geometry: 5 mel frames).
func (c *Config) MinSamples() int {
	return max(c.MinFrames()*Hop, melPad+1)
}

// MACs returns the multiply-accumulates of the network (the convolutions,
// as the encoder computes them: the pooling bottleneck's mean and std
// columns once per clip) for T mel frames; the front end is not counted.
func (c *Config) MACs(T int) int64 {
	t := int64(T)
	L := len(c.Channels) - 1
	n := t * int64(c.Channels[0]*c.MelDim*c.Kernels[0])
	cat := 0
	for i := 1; i < L; i++ {
		ci, w := int64(c.Channels[i]), int64(c.Channels[i]/c.Res2NetScale)
		n += t * ci * int64(c.Channels[i-1])
		n += int64(c.Res2NetScale-1) * t * w * w * int64(c.Kernels[i])
		n += t*ci*ci + 2*ci*int64(c.SEChannels)
		cat += c.Channels[i]
	}
	cl, a := int64(c.Channels[L]), int64(c.AttentionChannels)
	n += t * cl * int64(cat) * int64(c.Kernels[L])
	n += t*a*cl + a*2*cl + t*cl*a
	n += int64(c.EncDim) * 2 * cl
	return n
}
